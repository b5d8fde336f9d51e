package sctp_test

import (
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/pion/sctp"
)

// TestAllStreams opens every stream a WebRTC association can have, as
// pion/webrtc opens one per data channel: streams 0 to 65534 on one
// association, a message each way on each (the opener's, then the
// accepting end's answer on the stream AcceptStream gave it), in batches
// of 1,024 channels, then closes them all from the opening end, the other
// end closing its side on the reset as pion/webrtc does. It does it twice:
// the heap held is bounded per stream, and once all are closed the second
// round holds no more than the first (closed streams are reused, not
// leaked).
func TestAllStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("65,535 streams")
	}
	const streams, batch = 65535, 1024
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	pair(t, nil, func(t *testing.T, a0, a1 *sctp.Association) {
		// One goroutine serves the accepting end (the race detector
		// allows 8,128 at once): it answers each stream, then, once the
		// opener reset them all, sees each end and closes its side.
		go func() {
			buf := make([]byte, 64)
			for range 2 {
				accepted := make([]*sctp.Stream, 0, streams)
				for range streams {
					s, err := a1.AcceptStream()
					if err != nil {
						return
					}
					n, err := s.Read(buf)
					if err != nil || string(buf[:n]) != fmt.Sprint("open ", s.StreamIdentifier()) {
						t.Errorf("stream %d: read %q, %v", s.StreamIdentifier(), buf[:n], err)
						return
					}
					if _, err := s.Write([]byte(fmt.Sprint("answer ", s.StreamIdentifier()))); err != nil {
						t.Error(err)
						return
					}
					accepted = append(accepted, s)
				}
				for _, s := range accepted {
					if _, err := s.Read(buf); err != io.EOF {
						t.Errorf("stream %d: read after the peer's reset: %v", s.StreamIdentifier(), err)
					}
					s.Close()
				}
			}
		}()
		var open, closed [2]int64
		for round := range 2 {
			all := make([]*sctp.Stream, 0, streams)
			buf := make([]byte, 64)
			for first := 0; first < streams; first += batch {
				last := min(first+batch, streams)
				for sid := first; sid < last; sid++ {
					s, err := a0.OpenStream(uint16(sid), sctp.PayloadTypeWebRTCString)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := s.Write([]byte(fmt.Sprint("open ", sid))); err != nil {
						t.Fatalf("stream %d: %v", sid, err)
					}
					all = append(all, s)
				}
				for _, s := range all[first:last] {
					n, err := s.Read(buf)
					if err != nil || string(buf[:n]) != fmt.Sprint("answer ", s.StreamIdentifier()) {
						t.Fatalf("round %d, stream %d: read %q, %v", round, s.StreamIdentifier(), buf[:n], err)
					}
				}
			}
			open[round] = heldSince(&before)
			for _, s := range all {
				s.Close()
			}
			for _, s := range all {
				if _, err := s.Read(buf); err != io.EOF {
					t.Fatalf("round %d, stream %d: read after both resets: %v", round, s.StreamIdentifier(), err)
				}
			}
			all = nil
			time.Sleep(time.Second)
			closed[round] = heldSince(&before)
			t.Logf("round %d: %d streams open each way: %d MB of heap held (%d bytes per stream and end); all closed: %d MB",
				round, streams, open[round]>>20, open[round]/streams/2, closed[round]>>20)
		}
		if perStream := open[0] / streams / 2; perStream > 2048 {
			t.Errorf("%d bytes of heap per stream and end", perStream)
		}
		if open[1] > open[0]+open[0]/4 || closed[1] > closed[0]+closed[0]/10 {
			t.Errorf("the second round held more: %d MB open, %d MB closed; the first %d MB, %d MB",
				open[1]>>20, closed[1]>>20, open[0]>>20, closed[0]>>20)
		}
	})
}

// heldSince returns how much more heap is in use than in before, after a
// collection.
func heldSince(before *runtime.MemStats) int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc) - int64(before.HeapAlloc)
}
