#!/usr/bin/env bash
# quic.sh: one quic-go stream beside usctp and Linux TCP on loopback.
#
# In each round, alternating: perf/bench/quicperf (one quic-go stream,
# 64 KiB writes, encrypted as QUIC always is) and sctpperf -compare
# usctp,tcp with 64 KiB messages. Prints each run and the medians of the
# receivers' Mbit/s. quicperf is a module of its own, so quic-go is not a
# dependency of usctp; its first build fetches quic-go from the module
# proxy.
#
#   perf/bench/quic.sh               # ROUNDS=3 SECS=3
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-3}

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd perf/bench/quicperf && go build -o "$bin/quicperf" .)
go build -o "$bin/sctpperf" ./cmd/sctpperf

quic=() usctp=() tcp=()
for r in $(seq "$ROUNDS"); do
	q=$("$bin/quicperf" -l "$SECS")
	echo "round $r quic-go  $q"
	quic+=("${q%% *}")
	out=$("$bin/sctpperf" -compare usctp,tcp -m 65536 -l "$SECS" -rounds 1 -D 0)
	u=$(awk '$1 == "usctp" && NF == 3 {print $2}' <<<"$out")
	t=$(awk '$1 == "tcp" && NF == 3 {print $2}' <<<"$out")
	echo "round $r usctp    $u Mbit/s"
	echo "round $r tcp      $t Mbit/s"
	usctp+=("$u") tcp+=("$t")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
q=$(median "${quic[@]}") u=$(median "${usctp[@]}") t=$(median "${tcp[@]}")
echo "medians of $ROUNDS rounds, Mbit/s: quic-go $q, usctp $u, Linux TCP $t"
awk -v q="$q" -v u="$u" -v t="$t" 'BEGIN {printf "quic-go / TCP %.2f, usctp / TCP %.2f, usctp / quic-go %.1fx\n", q / t, u / t, u / q}'
