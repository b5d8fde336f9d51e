module github.com/usctp/usctp

go 1.26.0

require (
	github.com/google/gopacket v1.1.19
	github.com/ishidawataru/sctp v0.0.0-20251114114122-19ddcbc6aae2
	golang.org/x/sys v0.50.0
)

require golang.org/x/net v0.0.0-20190620200207-3b0461eec859 // indirect
