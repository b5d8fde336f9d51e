#!/usr/bin/env bash
# The test suite on a busy machine (`make stress`): `go test -race ./...`
# STRESSRUNS times in a row (default 3) with STRESSLOAD CPU-bound processes
# (default 2) running beside it, failing on the first failure. The load
# processes are killed at the end, whatever happens.
#
# Environment:
#   STRESSRUNS     runs in a row (default 3)
#   STRESSLOAD     CPU-bound processes beside the tests (default 2)
#   STRESSNESTED   1 also runs the tests of the nested modules (sctp/compat/pion, perf/bench/quicperf) each run
#   TESTFLAGS      extra flags for `go test` (for example -run Sim)
set -euo pipefail
cd "$(dirname "$0")/.."

load=()
cleanup() {
	for pid in "${load[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${load[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Build the test binaries before the load starts, so that a run measures
# the tests and not the compiler.
# shellcheck disable=SC2086
go test -race -count=1 -run '^$' ${TESTFLAGS:-} ./... >/dev/null

for _ in $(seq "${STRESSLOAD:-2}"); do
	bash -c 'while :; do :; done' &
	load+=("$!")
done
echo "load: ${#load[@]} CPU-bound processes (${load[*]}) on $(nproc) CPUs"

runs=${STRESSRUNS:-3}
for i in $(seq "$runs"); do
	printf '\n=== run %d of %d: go test -race ./...\n' "$i" "$runs"
	start=$(date +%s)
	# shellcheck disable=SC2086
	go test -race -count=1 -timeout 40m ${TESTFLAGS:-} ./...
	if [ "${STRESSNESTED:-0}" = 1 ]; then
		for mod in $(git ls-files '*/go.mod'); do
			dir=$(dirname "$mod")
			echo "--- $dir"
			# shellcheck disable=SC2086
			(cd "$dir" && go test -race -count=1 -timeout 40m ${TESTFLAGS:-} ./...)
		done
	fi
	echo "run $i passed in $(($(date +%s) - start)) s"
done
echo "stress: $runs runs passed"
