module github.com/pion/sctp

go 1.25.0

require (
	github.com/pion/logging v0.2.4
	github.com/usctp/usctp v0.0.0-00010101000000-000000000000
)

require (
	github.com/cilium/ebpf v0.22.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)

replace github.com/usctp/usctp => ../../..
