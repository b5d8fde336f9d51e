# The commands of the README's quick start, and the long runs CI keeps short.

.PHONY: run test fuzz

FUZZTIME ?= 10m
FUZZCORPUS ?= .fuzzcorpus

# run: a 10 s SCTP_STREAM throughput run of usctp over UDP encapsulation on loopback.
run:
	go run ./cmd/sctpperf

# test: the whole test suite, installing what it needs (as CI does).
test:
	bash .ci/test.sh

# fuzz: every fuzz target for FUZZTIME each (make fuzz FUZZTIME=10m), keeping the
# corpus it grows in FUZZCORPUS (one directory per package and target) for the
# next run; failing inputs go to the package's testdata/fuzz.
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZCORPUS=$(FUZZCORPUS) bash .ci/fuzz.sh
