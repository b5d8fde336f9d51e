//go:build linux

package transport

import (
	"encoding/binary"
	"testing"

	"unsafe"

	"golang.org/x/sys/unix"
)

// groCmsg builds a UDP_GRO control message carrying seg.
func groCmsg(seg uint32) []byte {
	b := make([]byte, unix.CmsgSpace(4))
	c := (*unix.Cmsghdr)(unsafePointer(&b[0]))
	c.Level, c.Type = unix.SOL_UDP, unix.UDP_GRO
	c.SetLen(unix.CmsgLen(4))
	binary.NativeEndian.PutUint32(b[unix.CmsgLen(0):], seg)
	return b
}

func TestGROSegment(t *testing.T) {
	other := make([]byte, unix.CmsgSpace(4))
	c := (*unix.Cmsghdr)(unsafePointer(&other[0]))
	c.Level, c.Type = unix.SOL_IP, unix.IP_TOS
	c.SetLen(unix.CmsgLen(4))
	for _, tc := range []struct {
		name string
		oob  []byte
		n    int
		want int
	}{
		{"none", nil, 3000, 3000},
		{"gro", groCmsg(1452), 2904, 1452},
		{"after-other", append(append([]byte{}, other...), groCmsg(1000)...), 5000, 1000},
		{"zero-seg", groCmsg(0), 700, 700},
		{"short", groCmsg(1452)[:10], 100, 100},
		{"empty-datagram", nil, 0, 1},
	} {
		if got := groSegment(tc.oob, tc.n); got != tc.want {
			t.Errorf("%s: groSegment = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func FuzzGROSegment(f *testing.F) {
	f.Add(groCmsg(1452), 2904)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, oob []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		if s := groSegment(oob, n); s < 1 {
			t.Fatalf("segment %d", s)
		}
	})
}

func unsafePointer(b *byte) unsafe.Pointer { return unsafe.Pointer(b) }
