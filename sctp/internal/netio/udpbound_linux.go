//go:build linux

package netio

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// UDPBound returns how many UDP sockets of the calling thread's network
// namespace are bound to exactly addr (/proc/thread-self/net/udp and
// udp6): more than one means they share it with SO_REUSEPORT.
func UDPBound(addr netip.AddrPort) (int, error) {
	ip := addr.Addr().Unmap()
	file := "/proc/thread-self/net/udp"
	if ip.Is6() {
		file += "6"
	}
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		if a, ok := parseProcAddr(fields[1]); ok && a == netip.AddrPortFrom(ip, addr.Port()) {
			n++
		}
	}
	return n, sc.Err()
}

// parseProcAddr parses a local address of /proc/net/udp ("0100007F:26AB":
// the address as 32-bit words in host byte order, the port in hex).
func parseProcAddr(s string) (netip.AddrPort, bool) {
	h, p, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(p, 16, 16)
	raw, herr := hex.DecodeString(h)
	if !ok || err != nil || herr != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, false
	}
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	ip, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(ip, uint16(port)), true
}
