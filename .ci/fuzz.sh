#!/usr/bin/env bash
# Long fuzzing (`make fuzz`): every fuzz target of every package runs for
# FUZZTIME, and the corpus each one grows is kept, so the next run starts
# where this one ended.
#
# Environment:
#   FUZZTIME    how long each fuzz target runs (default 10m)
#   FUZZJOBS    how many targets run at once (default 1); each gets
#               nproc/FUZZJOBS fuzzing workers, at least one
#   FUZZCORPUS  where the generated corpus is kept (default .fuzzcorpus at
#               the repository root), one directory per package and target;
#               inputs that fail are written to the package's testdata/fuzz
#               as with `go test -fuzz`, to be committed with the fix
#   FUZZKEEP    copy up to this many of each target's generated inputs
#               (default 0) into the package's testdata/fuzz/<target>, the
#               seed corpus every `go test` runs, to be committed
#   FUZZ        a regular expression: only the targets whose name matches
#   FUZZPKGS    the packages to fuzz (default ./...)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fuzztime=${FUZZTIME:-10m}
jobs=${FUZZJOBS:-1}
workers=$(($(nproc) / jobs))
[ "$workers" -ge 1 ] || workers=1
corpus=${FUZZCORPUS:-$root/.fuzzcorpus}
case "$corpus" in /*) ;; *) corpus="$root/$corpus" ;; esac
filter=${FUZZ:-.}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

echo "fuzzing every target for $fuzztime, $jobs at a time with $workers workers each; corpus kept in $corpus"
# Build one test binary per package, run in the package directory as `go
# test` does, and list its targets: "package directory binary target" lines.
# shellcheck disable=SC2086
for pkg in $(go list ${FUZZPKGS:-./...}); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	grep -lq '^func Fuzz' "$dir"/*_test.go 2>/dev/null || continue
	targets=$(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' | grep -E "$filter" || true)
	[ -n "$targets" ] || continue
	exe="$bin/$(echo "$pkg" | tr / _).test"
	go test -c -fuzz . -o "$exe" "$pkg" # -fuzz: built with coverage instrumentation
	for f in $targets; do
		echo "$pkg $dir $exe $f" >>"$bin/targets"
	done
done
[ -s "$bin/targets" ] || { echo "no fuzz targets match $filter"; exit 1; }

# fuzz runs one target with the corpus directory set (-test.fuzzcachedir)
# instead of the build cache's, which `go clean -cache` would empty, and
# prints its report in one piece; it fails only on a failing input.
fuzz() {
	local pkg=$1 dir=$2 exe=$3 f=$4 log
	log="$bin/$(echo "$pkg.$f" | tr / _).log"
	mkdir -p "$corpus/$pkg"
	if ! (cd "$dir" && "$exe" -test.run '^$' -test.fuzz "^${f}\$" -test.fuzztime "$fuzztime" \
		-test.parallel "$workers" -test.fuzzminimizetime 30s -test.fuzzcachedir "$corpus/$pkg") >"$log" 2>&1; then
		if grep -q 'Failing input written\|panic:\|_test.go:[0-9]' "$log"; then
			{ echo "--- $pkg $f FAILED"; cat "$log"; } >"$log.report"
			cat "$log.report"
			return 1
		fi
		# Go 1.26's coordinator may end a run with a bare "context deadline
		# exceeded" as the time ends (golang/go#75804): no failing input.
		printf -- '--- %s %s\n    ended without a failing input: %s\n    last: %s\n' "$pkg" "$f" \
			"$(tail -1 "$log")" "$(grep 'fuzz: elapsed' "$log" | tail -1)"
		return 0
	fi
	printf -- '--- %s %s\n    %s\n    corpus: %s inputs in %s\n' "$pkg" "$f" \
		"$(grep 'fuzz: elapsed' "$log" | tail -1)" \
		"$(find "$corpus/$pkg/$f" -type f 2>/dev/null | wc -l)" "$corpus/$pkg/$f"
	keep "$dir" "$corpus/$pkg/$f" "$f"
}

# keep copies up to FUZZKEEP inputs of a target's generated corpus into
# its package's seed corpus: names are hashes of the contents, so the
# first ones by name are a sample.
keep() {
	local dir=$1 from=$2 f=$3 n=${FUZZKEEP:-0}
	[ "$n" -gt 0 ] && [ -d "$from" ] || return 0
	mkdir -p "$dir/testdata/fuzz/$f"
	find "$from" -type f -printf '%f\n' | sort | head -n "$n" | while read -r name; do
		cp -n "$from/$name" "$dir/testdata/fuzz/$f/$name"
	done
}

failed=()
pids=()
names=()
# reap waits for the oldest running target and records its verdict.
reap() {
	if ! wait "${pids[0]}"; then
		failed+=("${names[0]}")
	fi
	pids=("${pids[@]:1}")
	names=("${names[@]:1}")
}
while read -r pkg dir exe f; do
	while [ ${#pids[@]} -ge "$jobs" ]; do
		reap
	done
	fuzz "$pkg" "$dir" "$exe" "$f" &
	pids+=("$!")
	names+=("$pkg $f")
done <"$bin/targets"
while [ ${#pids[@]} -gt 0 ]; do
	reap
done
if [ ${#failed[@]} -gt 0 ]; then
	printf 'FAILED: %s\n' "${failed[@]}"
	exit 1
fi
echo "every target ran $fuzztime without a failure"
