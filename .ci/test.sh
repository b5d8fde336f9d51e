#!/usr/bin/env bash
# The whole usctp test suite: the README's test command (`make test`) runs this,
# and so does CI (.ci/run). It installs what the tests need by itself.
#
# Environment:
#   FUZZTIME   how long each fuzz target runs (default 4s; 0 skips fuzzing)
#   TESTFLAGS  extra flags for `go test` (for example -run Kernel)
#   SOAKTIME   how long the soak test runs (default 60s)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n=== %s\n' "$*"; }

step "toolchain"
go version

# Debian packages the tests use: ip (network namespaces for raw IP tests), tshark
# (an independent decoder for the pcaps the tests write), nft (TestKernelECN marks
# CE on the guest's packets in transport B's network namespace), and headless
# Chromium and Firefox (sctp/compat/pion's TestBrowser: their data channels against
# usctp, in a loopback-only network namespace; without recommends they still run
# headless).
missing=()
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
command -v nft >/dev/null 2>&1 || missing+=(nftables)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v firefox-esr >/dev/null 2>&1 || missing+=(firefox-esr)
if [ ${#missing[@]} -gt 0 ]; then
	step "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The browser tests never skip here: a missing browser fails them.
export USCTP_BROWSERS=required

# bpffs at /sys/fs/bpf: processes share a UDP port through a BPF program whose maps are
# pinned there (the sctp and netio tests of sharing a port between processes skip without it).
if [ "$(id -u)" = 0 ] && [ -d /sys/fs/bpf ] && [ "$(stat -f -c %T /sys/fs/bpf)" != bpf_fs ]; then
	step "mounting bpffs"
	mount -t bpf bpf /sys/fs/bpf
fi

# The kernel interop rig: packages and the guest kernel, cached.
if [ -x .ci/guest.sh ]; then
	step "kernel interop guest"
	USCTP_GUEST_DIR=$(.ci/guest.sh)
	export USCTP_GUEST_DIR
	echo "guest: $USCTP_GUEST_DIR"
fi

step "gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$bad" ]; then
	echo "gofmt would change:"; echo "$bad"; exit 1
fi

step "go vet"
go vet ./...

step "go vet for darwin and windows"
# UDP encapsulation works everywhere: the stack and sctp/compat must build for macOS and
# Windows. The kernel interop rig, perf and the commands are Linux tools.
portable=$(go list ./... | grep -v -e /sctp/internal/kernelvm -e /sctp/internal/kerneltest \
	-e /sctp/internal/netnstest -e /perf -e /cmd/)
for goos in darwin windows; do
	# shellcheck disable=SC2086
	GOOS=$goos go vet $portable
done

step "go test -race"
# One second chance, for one diagnosed fault of the emulator and nothing else: when
# the kernel interop package is the only one that failed and a failed test found the
# guest unable to ping QEMU's own gateway (the rig then boots a new guest), that
# package runs once more. QEMU's user network is not usctp; a usctp fault leaves the
# guest's ping working and fails here as before.
log=$(mktemp)
# shellcheck disable=SC2086
if ! go test -race -count=1 -timeout 25m ${TESTFLAGS:-} ./... 2>&1 | tee "$log"; then
	failed=$(awk '$1 == "FAIL" && NF >= 2 {print $2}' "$log" | sort -u)
	if [ "$failed" = github.com/usctp/usctp/sctp/internal/kerneltest ] &&
		grep -q 'kerneltest: guest network dead' "$log"; then
		step "go test -race ./sctp/internal/kerneltest, again: the guest's network died (above)"
		# shellcheck disable=SC2086
		go test -race -count=1 -timeout 25m ${TESTFLAGS:-} ./sctp/internal/kerneltest
	else
		exit 1
	fi
fi
rm -f "$log"

step "soak, ${SOAKTIME:-60s}"
# Mixed traffic on the simulated network (make soak runs it 10 minutes): exact
# data through loss, failover, restarts, aborts and resets; no growth of
# goroutines, heap or file descriptors.
USCTP_SOAK=${SOAKTIME:-60s} go test -race -count=1 -run '^TestSoak$' ./sctp

step "nested modules"
# The replace modules under sctp/compat (a module each, with the path of the package they
# stand in for) and perf/bench/quicperf (a module so that quic-go stays out of usctp's
# go.mod) are outside ./...: vet and test each in its own directory. Their tests build
# foreign code (pion's tests, a pion/webrtc program, quic-go) from the module proxy.
for mod in $(git ls-files '*/go.mod' 2>/dev/null || find . -mindepth 2 -name go.mod -not -path './.*'); do
	dir=$(dirname "$mod")
	echo "--- $dir"
	(cd "$dir" && go vet ./... && go mod tidy -diff &&
		# shellcheck disable=SC2086
		go test -race -count=1 -timeout 25m ${TESTFLAGS:-} ./...)
done

fuzztime=${FUZZTIME:-4s}
if [ "$fuzztime" != "0" ]; then
	step "fuzz targets, $fuzztime each"
	for pkg in $(go list ./...); do
		dir=$(go list -f '{{.Dir}}' "$pkg")
		grep -lq '^func Fuzz' "$dir"/*_test.go 2>/dev/null || continue
		for f in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
			echo "--- $pkg $f"
			# Minimising a newly interesting input may take up to
			# -fuzzminimizetime (60 s by default) and runs past -fuzztime,
			# which then fails with "context deadline exceeded": keep it short.
			# Go 1.26's fuzz coordinator can also fail a run with a bare "context
			# deadline exceeded" just as -fuzztime ends (golang/go#75804, fixed in
			# Go 1.27): such a run, with no failing input written, is run
			# again, up to three times; if the race ends all three, the
			# target fuzzed for three periods and found no failing input,
			# which is reported and not counted as a failure (it struck two
			# runs in a row once, on a loaded host). Any other failure fails
			# at once.
			for try in 1 2 3; do
				if go test -run '^$' -fuzz "^${f}\$" -fuzztime "$fuzztime" -fuzzminimizetime 1s "$pkg" >/tmp/usctp-fuzz.log 2>&1; then
					break
				fi
				if grep -q 'context deadline exceeded' /tmp/usctp-fuzz.log &&
					! grep -q 'Failing input written\|panic:\|_test.go:[0-9]' /tmp/usctp-fuzz.log; then
					if [ "$try" -lt 3 ]; then
						echo "    fuzz coordinator deadline race (golang/go#75804), no failing input: running again"
						continue
					fi
					echo "    fuzz coordinator deadline race in three runs, no failing input in any: not a failure"
					break
				fi
				cat /tmp/usctp-fuzz.log
				exit 1
			done
			tail -1 /tmp/usctp-fuzz.log
		done
	done
fi

step "done"
