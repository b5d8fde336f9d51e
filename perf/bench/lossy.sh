#!/usr/bin/env bash
# lossy.sh: usctp against usrsctp on the same lossy path.
#
# 16 MB echoed in 1400-byte messages through cmd/lossyrelay on loopback,
# which drops LOSS of the datagrams each way, duplicates 1% and reorders 2%,
# with the same seeds for both stacks; prints each run and the medians. The
# usrsctp peer (perf/bench/usrsctpecho.c) is built here against Debian's
# libusrsctp-dev, installed when missing; it is not part of CI.
#
#   perf/bench/lossy.sh                 # LOSSES="0.01 0.05" SEEDS="1 2 3"
#   STACKS=usctp LOSSES=0.05 perf/bench/lossy.sh
#   STACKS=usctp USCTP_FLAGS=-rfc9260 perf/bench/lossy.sh   # RFC 9260 loss recovery
#   DELAY=10ms BYTES=4194304 perf/bench/lossy.sh            # a 20 ms round trip
set -euo pipefail
cd "$(dirname "$0")/../.."
LOSSES=${LOSSES:-"0.01 0.05"}
SEEDS=${SEEDS:-"1 2 3"}
STACKS=${STACKS:-"usctp usrsctp"}
BYTES=${BYTES:-16777216}
SIZE=${SIZE:-1400}
DUP=${DUP:-0.01}
REORDER=${REORDER:-0.02}
DELAY=${DELAY:-0} # one-way delay added by the relay, each way (e.g. 10ms)
TIMEOUT=${TIMEOUT:-300}
USCTP_FLAGS=${USCTP_FLAGS:-} # e.g. -cubic or -rfc9260

bin=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$bin"
}
trap cleanup EXIT

go build -o "$bin/lossyrelay" ./cmd/lossyrelay
go build -o "$bin/usctpecho" ./perf/bench/usctpecho
if [[ " $STACKS " == *" usrsctp "* ]]; then
	if [ ! -e /usr/include/usrsctp.h ]; then
		SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
		$SUDO apt-get update -qq && $SUDO apt-get install -y -qq libusrsctp-dev >/dev/null
	fi
	cc -O2 -Wall -o "$bin/usrsctpecho" perf/bench/usrsctpecho.c -lusrsctp -lpthread
fi

port=$((20000 + RANDOM % 20000))
# run STACK LOSS SEED: one transfer; prints the client's seconds.
run() {
	local stack=$1 loss=$2 seed=$3
	local sudp=$port cudp=$((port + 1)) rudp=$((port + 2)) sport=$((port + 3))
	port=$((port + 4))
	local server
	if [ "$stack" = usctp ]; then
		"$bin/usctpecho" -s -udp "$sudp" -port "$sport" $USCTP_FLAGS & server=$!
	else
		"$bin/usrsctpecho" -s "$sudp" "$sport" & server=$!
	fi
	pids+=("$server")
	"$bin/lossyrelay" -listen "127.0.0.1:$rudp" -server "127.0.0.1:$sudp" \
		-loss "$loss" -dup "$DUP" -reorder "$REORDER" -delay "$DELAY" -seed "$seed" >/dev/null 2>&1 &
	local relay=$!
	pids+=("$relay")
	sleep 0.3
	local t
	if [ "$stack" = usctp ]; then
		t=$(timeout "$TIMEOUT" "$bin/usctpecho" -c -udp "$cudp" -remote-udp "$rudp" -port "$sport" -bytes "$BYTES" -size "$SIZE" $USCTP_FLAGS || echo fail)
	else
		t=$(timeout "$TIMEOUT" "$bin/usrsctpecho" -c "$cudp" "$rudp" "$sport" "$BYTES" "$SIZE" || echo fail)
	fi
	kill "$relay" "$server" 2>/dev/null || true
	wait "$relay" "$server" 2>/dev/null || true
	echo "$t"
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "# $BYTES bytes echoed in $SIZE-byte messages; dup $DUP, reorder $REORDER, delay $DELAY each way; seeds $SEEDS"
printf '%-6s %-8s %s\n' loss stack "seconds per seed -> median"
declare -A med
for loss in $LOSSES; do
	for stack in $STACKS; do
		times=()
		for seed in $SEEDS; do
			times+=("$(run "$stack" "$loss" "$seed")")
		done
		med[$loss,$stack]=$(median "${times[@]}")
		printf '%-6s %-8s %s -> %s\n' "$loss" "$stack" "${times[*]}" "${med[$loss,$stack]}"
	done
done
if [[ " $STACKS " == *" usctp "* && " $STACKS " == *" usrsctp "* ]]; then
	echo
	printf '| loss | usctp (s) | usrsctp (s) | usctp/usrsctp |\n|---|---|---|---|\n'
	for loss in $LOSSES; do
		a=${med[$loss,usctp]} b=${med[$loss,usrsctp]}
		printf '| %s%% | %s | %s | %s |\n' "$(awk "BEGIN{print $loss*100}")" "$a" "$b" "$(awk "BEGIN{ if ($b>0) printf \"%.2fx\", $a/$b}")"
	done
fi
