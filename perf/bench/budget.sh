#!/usr/bin/env bash
# budget.sh: where the CPU goes when usctp moves bytes, beside Linux TCP,
# for docs/PERFORMANCE.md "Cost budget". Three yardsticks first:
#
#   memcpy   one copy, ns per KB (BenchmarkMemcpy in ./perf, 64 KiB, in cache)
#   crc32c   CRC32c over a 1452-byte DATA packet, ns per KB (sctp/chunk)
#   udp      the UDP socket path usctp rides on: 1452-byte datagrams sent
#            with GSO and read with GRO over loopback (netio's
#            BenchmarkUDPThroughput), CPU of both ends per datagram
#
# then, for each path (loopback, and with root a veth pair of MTU 1500
# between two namespaces) and each stack (usctp, tcp), one sctpperf
# SCTP_STREAM run of 64 KiB messages per round under `perf record`
# (cpu-clock, both processes), its samples sorted into categories by
# symbol: CPU of both ends per 1452 bytes delivered, by category. Rounds
# alternate the stacks and are pooled.
#
#   perf/bench/budget.sh               # SECS=5 ROUNDS=3
#   NETNS=0 perf/bench/budget.sh       # loopback only
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${SECS:-5}
ROUNDS=${ROUNDS:-3}
MSG=${MSG:-65536}
NETNS=${NETNS:-$([ "$(id -u)" = 0 ] && echo 1500 || echo 0)}
if ! command -v perf >/dev/null; then
	SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
	$SUDO apt-get update -qq && $SUDO apt-get install -y -qq linux-perf >/dev/null
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/sctpperf" ./cmd/sctpperf
go test -c -o "$dir/perf.test" ./perf
go test -c -o "$dir/chunk.test" ./sctp/chunk
go test -c -o "$dir/netio.test" ./sctp/internal/netio

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# Yardsticks, medians of ROUNDS.
for _ in $(seq "$ROUNDS"); do
	"$dir/perf.test" -test.run '^$' -test.bench 'Memcpy/65536$' -test.benchtime 1s |
		awk '/^BenchmarkMemcpy/ {print $3 / 64}' >>"$dir/memcpy"
	"$dir/chunk.test" -test.run '^$' -test.bench 'CRC32c$' -test.benchtime 1s |
		awk '/^BenchmarkCRC32c/ {for (i = 1; i < NF; i++) if ($(i+1) == "MB/s") print 1e6 / $i}' >>"$dir/crc"
	n=2000000
	perf stat -x, -e task-clock -o "$dir/udpstat" \
		"$dir/netio.test" -test.run '^$' -test.bench 'UDPThroughput/v4/gso\+gro$' -test.benchtime ${n}x >"$dir/udpout"
	d=$(awk '/gso\+gro/ {for (i = 1; i < NF; i++) if ($(i+1) == "%delivered") print $i}' "$dir/udpout")
	echo "$d" >>"$dir/udpdelivered"
	awk -F, -v n=$n -v d="$d" '/task-clock/ {print $1 * 1e6 / (n * d / 100)}' "$dir/udpstat" >>"$dir/udp"
done
printf '\nyardsticks (medians of %d)\n' "$ROUNDS"
printf '  memcpy, 64 KiB in cache         %8.1f ns per KB\n' "$(median <"$dir/memcpy")"
printf '  CRC32c, 1452-byte DATA packet   %8.1f ns per KB\n' "$(median <"$dir/crc")"
printf '  UDP GSO send + GRO receive      %8.0f ns CPU per 1452-byte datagram delivered (%s%% of those sent)\n' \
	"$(median <"$dir/udp")" "$(median <"$dir/udpdelivered")"

# cat.awk sorts samples ("count, dso, symbol" lines) into the budget's
# categories by symbol and prints each category's CPU per 1452 bytes.
cat >"$dir/cat.awk" <<'AWK'
function category(dso, sym) {
	if (sym ~ /crc32|^crc[A-Z]|checksumPacket/) return "CRC32c" # hash/crc32, internal/crc32c and its assembly (crcBody)
	if (sym == "runtime.memmove") return "copies in Go (memmove)"
	if (dso ~ /kernel/) {
		if (sym ~ /msghdr|iovec|syscall|entry_SYSCALL|sysret|exit_to_user|irqentry|^fdget|^fput|x64_sys_call|^__sys_|^__x64_sys/) return "kernel: system call entry, exit, arguments"
		if (sym ~ /copy_to_iter|copy_from_iter|copy_user|rep_movs|_copy_from_user|_copy_to_user|^memcpy|skb_copy_datagram|copy_page/) return "kernel: copies to and from user space"
		if (sym ~ /csum/) return "kernel: checksums"
		if (sym ~ /schedule|switch|futex|wake|idle|enqueue_task|dequeue_task|update_curr|pick_next|hrtimer|select_task|ttwu|psi_|cpuacct|^do_nanosleep|poll|epoll|ep_/) return "kernel: scheduling, wake-ups, polling"
		return "kernel: network stack (UDP/IP or TCP, loopback or veth), memory"
	}
	if (dso ~ /vdso/ || sym ~ /nanotime|^time\.now|^time\.Now/) return "clock reads"
	if (sym ~ /^(syscall\.|internal\/runtime\/syscall|golang.org\/x\/sys|internal\/poll)/) return "Go: system call wrappers, netpoller"
	if (sym ~ /^runtime\.(mallocgc|gc|scanobject|markroot|sweep|bgsweep|greyobject|findObject|heapBits|memclr|mProf|wbBuf|bulkBarrier|typePointers|nextFree|newobject|makeslice|growslice)/) return "Go: allocation and GC"
	if (sym ~ /^(runtime|internal\/runtime|sync)/) return "Go: scheduler, locks, runtime"
	if (sym ~ /^github.com\/usctp\/usctp\/perf/) return "sctpperf itself (TCP framing, accounting)"
	if (sym ~ /^github.com\/usctp\/usctp\/sctp\.|^github.com\/usctp\/usctp\/sctp\/internal\/netio/) return "usctp: shell, socket batching"
	if (sym ~ /^github.com\/usctp\/usctp/) return "usctp: protocol engine"
	return "other"
}
{ ns[category($2, $3)] += $1 * 250000; total += $1 * 250000 }
END {
	per = bytes / 1452
	for (k in ns) printf "%s\t%s\t%.0f\n", k, col, ns[k] / per
	printf "%s\t%s\t%.0f\n", "total", col, total / per
}
AWK

paths=(lo)
[ "$NETNS" != 0 ] && paths+=("veth$NETNS")
for path in "${paths[@]}"; do
	flags=()
	[ "$path" != lo ] && flags=(-netns "$NETNS")
	for r in $(seq "$ROUNDS"); do
		for stack in usctp tcp; do
			out="$dir/$path.$stack.$r"
			perf record -q -e cpu-clock -c 250000 -o "$out.data" -- \
				"$dir/sctpperf" -stack "$stack" -m "$MSG" -l "$SECS" -D 0 "${flags[@]}" -json >"$out.json" 2>/dev/null
			grep -o '"bytes": [0-9]*' "$out.json" | awk '{print $2}' >"$out.bytes"
			grep -o '"throughput_mbps": [0-9.]*' "$out.json" | awk '{print $2}' >>"$dir/$path.$stack.mbps"
			# Samples per (dso, symbol), each 250 µs of CPU.
			perf report -i "$out.data" --stdio --no-children -g none --sort dso,sym --show-nr-samples 2>/dev/null |
				awk '!/^#/ && NF >= 4 && $1 ~ /%$/ {s = $2; dso = $3; sym = $5; for (i = 6; i <= NF; i++) sym = sym " " $i; print s "\t" dso "\t" sym}' >"$out.syms"
			rm -f "$out.data"
		done
	done
done

printf '\nCPU of both ends per 1452 bytes delivered, ns (SCTP_STREAM, %d-byte messages, %d rounds of %d s pooled)\n\n' "$MSG" "$ROUNDS" "$SECS"
header="| category |"
rule="|---|"
for path in "${paths[@]}"; do
	for stack in usctp tcp; do
		header="$header $stack $path |"
		rule="$rule---:|"
	done
done
echo "$header"
echo "$rule"
cols=()
for path in "${paths[@]}"; do
	for stack in usctp tcp; do
		cols+=("$path.$stack")
	done
done
for c in "${cols[@]}"; do
	bytes=$(cat "$dir/$c".*.bytes | awk '{s += $1} END {print s}')
	cat "$dir/$c".*.syms | awk -F'\t' -v col="$c" -v bytes="$bytes" -f "$dir/cat.awk"
done >"$dir/table"
awk -F'\t' -v cols="${cols[*]}" '
	BEGIN { n = split(cols, c, " ") }
	{ v[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; if ($1 != "total") order[++m] = $1 } }
	END {
		for (i = 1; i <= m; i++) {
			line = "| " order[i] " |"
			for (j = 1; j <= n; j++) line = line " " ((order[i], c[j]) in v ? v[order[i], c[j]] : "-") " |"
			print line
		}
		line = "| **total** |"
		for (j = 1; j <= n; j++) line = line " **" v["total", c[j]] "** |"
		print line
	}' "$dir/table" | sort -t'|' -k2,2 | awk '/\*\*total/ {t = $0; next} {print} END {print t}'
printf '\nthroughput, Mbit/s (median of %d)\n' "$ROUNDS"
for c in "${cols[@]}"; do
	printf '  %-12s %8.0f\n' "$c" "$(median <"$dir/$c.mbps")"
done
