#!/usr/bin/env bash
# Long fuzzing (`make fuzz`): every fuzz target of every package runs for
# FUZZTIME, one after another, and the corpus each one grows is kept, so the
# next run starts where this one ended.
#
# Environment:
#   FUZZTIME    how long each fuzz target runs (default 10m)
#   FUZZCORPUS  where the generated corpus is kept (default .fuzzcorpus at
#               the repository root), one directory per package and target;
#               inputs that fail are written to the package's testdata/fuzz
#               as with `go test -fuzz`, to be committed with the fix
#   FUZZ        a regular expression: only the targets whose name matches
#   FUZZPKGS    the packages to fuzz (default ./...)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fuzztime=${FUZZTIME:-10m}
corpus=${FUZZCORPUS:-$root/.fuzzcorpus}
case "$corpus" in /*) ;; *) corpus="$root/$corpus" ;; esac
filter=${FUZZ:-.}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT

echo "fuzzing every target for $fuzztime; corpus kept in $corpus"
failed=()
# shellcheck disable=SC2086
for pkg in $(go list ${FUZZPKGS:-./...}); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	grep -lq '^func Fuzz' "$dir"/*_test.go 2>/dev/null || continue
	targets=$(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' | grep -E "$filter" || true)
	[ -n "$targets" ] || continue
	# One test binary per package, run in the package directory as `go test`
	# does, with the corpus directory set (-test.fuzzcachedir) instead of the
	# build cache's, which `go clean -cache` would empty.
	exe="$bin/$(echo "$pkg" | tr / _).test"
	go test -c -fuzz . -o "$exe" "$pkg" # -fuzz: built with coverage instrumentation
	for f in $targets; do
		echo "--- $pkg $f"
		mkdir -p "$corpus/$pkg"
		if ! (cd "$dir" && "$exe" -test.run '^$' -test.fuzz "^${f}\$" -test.fuzztime "$fuzztime" \
			-test.fuzzminimizetime 30s -test.fuzzcachedir "$corpus/$pkg") >"$bin/log" 2>&1; then
			if grep -q 'Failing input written\|panic:\|_test.go:[0-9]' "$bin/log"; then
				cat "$bin/log"
				failed+=("$pkg $f")
				continue
			fi
			# Go 1.26's coordinator may end a run with a bare "context deadline
			# exceeded" as the time ends (golang/go#75804): no failing input.
			echo "    ended without a failing input: $(tail -1 "$bin/log")"
			continue
		fi
		tail -2 "$bin/log" | head -1
		echo "    corpus: $(find "$corpus/$pkg/$f" -type f 2>/dev/null | wc -l) inputs in $corpus/$pkg/$f"
	done
done
if [ ${#failed[@]} -gt 0 ]; then
	printf 'FAILED: %s\n' "${failed[@]}"
	exit 1
fi
echo "every target ran $fuzztime without a failure"
