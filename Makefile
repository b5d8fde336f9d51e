# The two commands of the README's quick start.

.PHONY: run test

# run: a 10 s SCTP_STREAM throughput run of usctp over UDP encapsulation on loopback.
run:
	go run ./cmd/sctpperf

# test: the whole test suite, installing what it needs (as CI does).
test:
	bash .ci/test.sh
