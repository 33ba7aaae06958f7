module github.com/billsnap/billsnap

go 1.26.8

require (
	github.com/cenkalti/backoff/v5 v5.0.3
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/kr/text v0.2.0 // indirect
	gopkg.in/check.v1 v1.0.0-20201130134442-10cb98267c6c // indirect
)
