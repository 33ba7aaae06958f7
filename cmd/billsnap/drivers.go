package main

// The object storage drivers parquet.url opens (package lake).
import _ "github.com/billsnap/billsnap/lake/drivers"
