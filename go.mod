module github.com/usctp/usctp

go 1.26.0

require (
	github.com/ishidawataru/sctp v0.0.0-20251114114122-19ddcbc6aae2
	golang.org/x/sys v0.50.0
)
