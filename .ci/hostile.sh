#!/usr/bin/env bash
# Long hostile-peer runs (`make hostile`): an echo server (sctpcat -l -echo)
# in its own process, attacked by sctpattack with every pattern (or
# PATTERNS) for HOSTILETIME each, while a legitimate client has data echoed;
# the server's CPU time and RSS are reported per pattern. The server uses
# the peer's other addresses (-multihome -dynamic-addrs), so that the
# reflection patterns (initaddrs, asconfaddrs) find something to abuse.
#
# Environment:
#   HOSTILETIME  how long each pattern runs (default 60s)
#   PATTERNS     comma-separated patterns (default all)
#   RATE         packets per second of the attack (default 0: as fast as it can)
#   UDPPORT      the server's UDP encapsulation port (default 19899)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
server=
cleanup() {
	if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
	rm -rf "$bin"
}
trap cleanup EXIT
go build -o "$bin/sctpcat" ./cmd/sctpcat
go build -o "$bin/sctpattack" ./cmd/sctpattack
port=${UDPPORT:-19899}
"$bin/sctpcat" -l -echo -multihome -dynamic-addrs -udp-port "$port" 127.0.0.1:7000 >/dev/null 2>"$bin/server.log" &
server=$!
sleep 1
kill -0 "$server" || { cat "$bin/server.log"; exit 1; }
echo "server pid $server, UDP port $port; answers to single packets:"
"$bin/sctpattack" -amplify -remote-udp-port "$port" 127.0.0.1:7000
echo "patterns, ${HOSTILETIME:-60s} each:"
"$bin/sctpattack" -patterns "${PATTERNS:-all}" -duration "${HOSTILETIME:-60s}" -rate "${RATE:-0}" \
	-pid "$server" -remote-udp-port "$port" 127.0.0.1:7000
kill -0 "$server" || { echo "the server died:"; cat "$bin/server.log"; exit 1; }
echo "the server is alive"
