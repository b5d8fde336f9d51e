# The commands of the README's quick start, and the long runs CI keeps short.

.PHONY: run test bench-lossy fuzz hostile stress soak

FUZZTIME ?= 10m
FUZZCORPUS ?= .fuzzcorpus
FUZZJOBS ?= 1
FUZZKEEP ?= 0
HOSTILETIME ?= 60s
STRESSRUNS ?= 3
SOAKTIME ?= 10m

# run: a 10 s SCTP_STREAM throughput run of usctp over UDP encapsulation on loopback.
run:
	go run ./cmd/sctpperf

# test: the whole test suite, installing what it needs (as CI does).
test:
	bash .ci/test.sh

# bench-lossy: usctp against usrsctp through a lossy UDP relay on loopback
# (1% and 5% loss, 1% duplication, 2% reordering; medians of 3 seeds).
bench-lossy:
	bash perf/bench/lossy.sh

# fuzz: every fuzz target for FUZZTIME each (make fuzz FUZZTIME=10m), FUZZJOBS
# targets at a time sharing the CPUs, keeping the corpus it grows in FUZZCORPUS
# (one directory per package and target) for the next run; failing inputs go to
# the package's testdata/fuzz, and FUZZKEEP=N copies N generated inputs of each
# target there too.
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZJOBS=$(FUZZJOBS) FUZZKEEP=$(FUZZKEEP) FUZZCORPUS=$(FUZZCORPUS) bash .ci/fuzz.sh

# hostile: every attack pattern of cmd/sctpattack for HOSTILETIME each against an echo
# server in its own process, with a legitimate client alongside; reports the server's
# CPU and RSS per pattern (make hostile HOSTILETIME=5m PATTERNS=pdstreams,tinyfrags).
hostile:
	HOSTILETIME=$(HOSTILETIME) bash .ci/hostile.sh

# stress: `go test -race ./...` STRESSRUNS times in a row (default 3) with two
# CPU-bound processes beside it, failing on the first failure (the suite must hold
# on a busy machine); STRESSNESTED=1 adds the nested modules' tests.
stress:
	STRESSRUNS=$(STRESSRUNS) bash .ci/stress.sh

# soak: SOAKTIME (default 10m) of mixed traffic on the simulated network (loss,
# reordering, duplication, restarts, aborts, stream resets, multi-homing failover),
# checking the data delivered and that goroutines, heap and file descriptors do not grow.
soak:
	USCTP_SOAK=$(SOAKTIME) nice go test -count=1 -run '^TestSoak$$' -timeout 0 -v ./sctp
