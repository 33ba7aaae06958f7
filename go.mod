module github.com/billsnap/billsnap

go 1.26.8
