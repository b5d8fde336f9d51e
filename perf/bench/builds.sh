#!/usr/bin/env bash
# builds.sh: two builds of usctp side by side on loopback: sctpperf built at
# two git revisions, run in turn (SCTP_STREAM and SCTP_RR, 3 s each) under
# perf stat. Prints per round the figure and the CPU time of both processes
# per GB (STREAM) or per 1,000 transactions (RR), then medians and the
# median of the per-round ratios (new/old). CPU time moves less than
# throughput on a shared host; see docs/PERFORMANCE.md "How to measure".
#
#   perf/bench/builds.sh                      # OLD=HEAD~1 NEW=HEAD ROUNDS=12
#   OLD=v0.1.0 NEW=main ROUNDS=20 perf/bench/builds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
OLD=${OLD:-HEAD~1}
NEW=${NEW:-HEAD}
ROUNDS=${ROUNDS:-12}
SECS=${SECS:-3}
if ! command -v perf >/dev/null; then
	SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
	$SUDO apt-get update -qq && $SUDO apt-get install -y -qq linux-perf >/dev/null
fi
dir=$(mktemp -d)
cleanup() {
	git worktree remove --force "$dir/src" >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT
for side in old new; do
	rev=${OLD}
	[ $side = new ] && rev=${NEW}
	git worktree add -q --detach "$dir/src" "$rev"
	(cd "$dir/src" && go build -o "$dir/sctpperf-$side" ./cmd/sctpperf)
	git worktree remove --force "$dir/src"
done
# run SIDE TEST: one run; prints "figure cpu-ms-per-unit".
run() {
	perf stat -x, -e task-clock -o "$dir/stat" "$dir/sctpperf-$1" -t "$2" -l "$SECS" -D 0 -json >"$dir/out" 2>/dev/null
	python3 - "$dir/out" "$dir/stat" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ms = next(float(l.split(',')[0]) for l in open(sys.argv[2]) if ',task-clock,' in l)
if d['params']['test'] == 'SCTP_STREAM':
    print(round(d['throughput_mbps']), round(ms / (d['bytes'] / 1e9), 1))
else:
    print(round(d['transactions_per_s']), round(ms / (d['transactions_per_s'] * d['elapsed_s'] / 1000), 2))
PY
}
echo "# old $OLD ($(git rev-parse --short "$OLD")), new $NEW ($(git rev-parse --short "$NEW")), $ROUNDS rounds of ${SECS} s"
for i in $(seq "$ROUNDS"); do
	for t in SCTP_STREAM SCTP_RR; do
		o=$(run old $t)
		n=$(run new $t)
		echo "$t $o $n" | tee -a "$dir/rounds"
	done
done
python3 - "$dir/rounds" <<'PY'
import statistics as st, sys
rows = {}
for l in open(sys.argv[1]):
    t, fo, co, fn, cn = l.split()
    rows.setdefault(t, []).append((float(fo), float(co), float(fn), float(cn)))
print("| test | old | new | new/old | paired | CPU per unit new/old | paired |")
print("|---|---|---|---|---|---|---|")
for t, r in rows.items():
    fo, co = st.median(x[0] for x in r), st.median(x[1] for x in r)
    fn, cn = st.median(x[2] for x in r), st.median(x[3] for x in r)
    print("| %s | %g | %g | %.3f | %.3f | %.3f | %.3f |" % (t, fo, fn, fn / fo,
          st.median(x[2] / x[0] for x in r), cn / co, st.median(x[3] / x[1] for x in r)))
PY
