# The two commands of the README's quick start.

.PHONY: run test bench-lossy

# run: a 10 s SCTP_STREAM throughput run of usctp over UDP encapsulation on loopback.
run:
	go run ./cmd/sctpperf

# test: the whole test suite, installing what it needs (as CI does).
test:
	bash .ci/test.sh

.PHONY: bench-lossy
# bench-lossy: usctp against usrsctp through a lossy UDP relay on loopback
# (1% and 5% loss, 1% duplication, 2% reordering; medians of 3 seeds).
bench-lossy:
	bash perf/bench/lossy.sh
