module github.com/usctp/usctp

go 1.25.0

require (
	github.com/google/gopacket v1.1.19
	github.com/ishidawataru/sctp v0.0.0-20251114114122-19ddcbc6aae2
	golang.org/x/net v0.58.0
	golang.org/x/sys v0.47.0
)

require (
	github.com/cilium/ebpf v0.22.0
	github.com/pion/logging v0.2.4
	github.com/pion/sctp v1.12.1
)

require (
	github.com/pion/randutil v0.1.0 // indirect
	github.com/pion/transport/v5 v5.1.5 // indirect
)
