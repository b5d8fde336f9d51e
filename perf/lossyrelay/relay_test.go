package lossyrelay

import (
	"encoding/binary"
	"net"
	"slices"
	"testing"
	"time"
)

// through sends n numbered datagrams from a client through a relay with
// imp in the forward direction and returns the numbers the server got, in
// arrival order.
func through(t *testing.T, imp Impairment, seed uint64, n int) ([]uint32, Stats) {
	t.Helper()
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	r, err := New(Config{Server: srv.LocalAddr().String(), Forward: imp, Seed: seed, ReorderHold: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cl, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(r.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var got []uint32
	buf := make([]byte, 64)
	for i := 0; i < n; i += 10 {
		for j := i; j < i+10; j++ {
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], uint32(j))
			if _, err := cl.Write(b[:]); err != nil {
				t.Fatal(err)
			}
		}
		// Ten at a time, so that loopback never drops and the order of
		// arrival is the relay's; a datagram held at the end of a burst
		// goes after the first of the next (well before the hold time).
		for {
			srv.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			m, _, err := srv.ReadFromUDP(buf)
			if err != nil {
				break
			}
			got = append(got, binary.BigEndian.Uint32(buf[:m]))
			if f, _ := r.Stats(); uint64(len(got)) == f.Out && f.In == uint64(i+10) {
				break
			}
		}
	}
	// A datagram held back at the very end comes after the hold time.
	for f, _ := r.Stats(); uint64(len(got)) < f.In-f.Dropped+f.Duplicated; f, _ = r.Stats() {
		srv.SetReadDeadline(time.Now().Add(2 * time.Second))
		m, _, err := srv.ReadFromUDP(buf)
		if err != nil {
			break
		}
		got = append(got, binary.BigEndian.Uint32(buf[:m]))
	}
	f, _ := r.Stats()
	return got, f
}

func TestRelayClean(t *testing.T) {
	got, st := through(t, Impairment{}, 1, 50)
	if len(got) != 50 || !slices.IsSorted(got) || st.Dropped+st.Duplicated+st.Reordered != 0 {
		t.Fatalf("clean relay delivered %v, stats %+v", got, st)
	}
}

func TestRelaySeeded(t *testing.T) {
	imp := Impairment{Loss: 0.1, Dup: 0.05, Reorder: 0.05}
	a, sa := through(t, imp, 7, 300)
	b, sb := through(t, imp, 7, 300)
	if !slices.Equal(a, b) || sa != sb {
		t.Fatalf("same seed, different fates: %+v vs %+v", sa, sb)
	}
	if sa.Dropped == 0 || sa.Duplicated == 0 || sa.Reordered == 0 {
		t.Fatalf("no impairment drawn: %+v", sa)
	}
	if want := sa.In - sa.Dropped + sa.Duplicated; sa.Out != want || uint64(len(a)) != want {
		t.Fatalf("out %d, received %d, want %d", sa.Out, len(a), want)
	}
	if slices.IsSorted(a) {
		t.Fatal("nothing reordered")
	}
	c, _ := through(t, imp, 8, 300)
	if slices.Equal(a, c) {
		t.Fatal("different seeds, same fates")
	}
}

// A delay holds every datagram for its time and keeps their order.
func TestRelayDelay(t *testing.T) {
	start := time.Now()
	got, st := through(t, Impairment{Delay: 30 * time.Millisecond}, 1, 20)
	if len(got) != 20 || !slices.IsSorted(got) || st.Out != 20 {
		t.Fatalf("delayed relay delivered %v, stats %+v", got, st)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Fatalf("20 datagrams through a 30 ms delay in %v", d)
	}
}
