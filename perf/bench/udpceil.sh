#!/usr/bin/env bash
# udpceil.sh: the ceiling of the UDP socket path, beside usctp and Linux TCP.
#
# On each path, loopback (64 KiB datagrams, as usctp sends there) and a veth
# pair of MTU 1500 between two network namespaces with GRO on (1472-byte
# datagrams in GSO batches of 44), and in each round:
#   - sctp/internal/udpceil sends datagrams as fast as the socket takes
#     them to a receiver that reads them with GRO: no protocol work ("bare");
#   - the same with the copy and the CRC32c per packet that any SCTP over
#     UDP makes on each side ("copy+crc");
#   - sctpperf -compare usctp,tcp with 64 KiB messages on the same path.
# Prints each run and the medians (receiver's Mbit/s). Root for the
# namespaces; installs ethtool when it is missing.
#
#   perf/bench/udpceil.sh               # ROUNDS=3 SECS=4
#   PATHS=veth ROUNDS=5 perf/bench/udpceil.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-4}
PATHS=${PATHS:-"loopback veth"}

bin=$(mktemp -d)
ns="udpceil$$"
cleanup() {
	ip netns del "${ns}a" 2>/dev/null || true
	ip netns del "${ns}b" 2>/dev/null || true
	rm -rf "$bin"
}
trap cleanup EXIT

if ! command -v ethtool >/dev/null; then
	SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
	$SUDO apt-get install -y -q ethtool >/dev/null
fi
go build -o "$bin/udpceil" ./sctp/internal/udpceil
go build -o "$bin/sctpperf" ./cmd/sctpperf

# The veth pair: GRO on before the move, as sctpperf -netns does.
ip netns add "${ns}a"
ip netns add "${ns}b"
ip link add "${ns}x" mtu 1500 type veth peer name "${ns}y" mtu 1500
ethtool -K "${ns}x" gro on >/dev/null
ethtool -K "${ns}y" gro on >/dev/null
ip link set "${ns}x" netns "${ns}a"
ip link set "${ns}y" netns "${ns}b"
ip -n "${ns}a" addr add 10.203.0.1/24 dev "${ns}x"
ip -n "${ns}b" addr add 10.203.0.2/24 dev "${ns}y"
for n in a b; do
	ip -n "${ns}$n" link set lo up
done
ip -n "${ns}a" link set "${ns}x" up
ip -n "${ns}b" link set "${ns}y" up

# ceil PATH WORK: one udpceil run, the receiver's Mbit/s.
ceil() {
	local path=$1 work=$2 rx tx args
	if [ "$path" = veth ]; then
		rx="ip netns exec ${ns}b" tx="ip netns exec ${ns}a"
		args="-addr 10.203.0.2:9999 -size 1472 -batch 44"
	else
		rx="" tx=""
		args="-addr 127.0.0.1:9999 -size 65507 -batch 8"
	fi
	local addr=${args%% -size*}
	$rx "$bin/udpceil" -mode recv $addr -work="$work" >"$bin/recv" &
	local pid=$!
	sleep 0.3
	$tx "$bin/udpceil" -mode send $args -t "${SECS}s" -work="$work" >/dev/null
	wait "$pid"
	awk '/Mbit/ {print $2}' "$bin/recv"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for path in $PATHS; do
	flags=""
	[ "$path" = veth ] && flags="-netns 1500"
	: >"$bin/bare" ; : >"$bin/work" ; : >"$bin/usctp" ; : >"$bin/tcp"
	for r in $(seq "$ROUNDS"); do
		b=$(ceil "$path" false)
		w=$(ceil "$path" true)
		out=$("$bin/sctpperf" -compare usctp,tcp -m 65536 -l "$SECS" -rounds 1 $flags 2>"$bin/progress")
		u=$(awk '$1 == "usctp" && NF == 3 {print $2}' <<<"$out")
		t=$(awk '$1 == "tcp" && NF == 3 {print $2}' <<<"$out")
		echo "$path round $r: udp bare $b, udp copy+crc $w, usctp $u, tcp $t (Mbit/s)"
		echo "$b" >>"$bin/bare"; echo "$w" >>"$bin/work"; echo "$u" >>"$bin/usctp"; echo "$t" >>"$bin/tcp"
	done
	b=$(median <"$bin/bare"); w=$(median <"$bin/work"); u=$(median <"$bin/usctp"); t=$(median <"$bin/tcp")
	awk -v p="$path" -v b="$b" -v w="$w" -v u="$u" -v t="$t" 'BEGIN {
		printf "%s medians: udp bare %.0f (%.2fx tcp), udp copy+crc %.0f (%.2fx), usctp %.0f (%.2fx), tcp %.0f Mbit/s\n",
			p, b, b/t, w, w/t, u, u/t, t }'
done
