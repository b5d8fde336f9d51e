package sctp

import (
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestStreamBufferedLowEvent: Stream.Buffered counts what was written on
// the stream and not yet acknowledged, and a stream with a low-water mark
// gets one EventBufferedLow each time that falls to the mark, as WebRTC's
// bufferedAmount and bufferedamountlow behave.
func TestStreamBufferedLowEvent(t *testing.T) {
	simPairCfg(t, simnet.LinkConfig{Delay: 10 * time.Millisecond}, nil, func(t *testing.T, c, s *Association) {
		st := c.Stream(3)
		if err := st.SetBufferedLow(1500); err != nil {
			t.Fatal(err)
		}
		msg := make([]byte, 1000)
		for range 10 {
			if _, err := st.Write(msg); err != nil {
				t.Fatal(err)
			}
		}
		if got := st.Buffered(); got != 10000 {
			t.Fatalf("Buffered() = %d right after the writes, want 10000", got)
		}
		if got := c.Stream(4).Buffered(); got != 0 {
			t.Fatalf("another stream buffers %d, want 0", got)
		}
		buf := make([]byte, 2000)
		for range 10 {
			if _, _, err := s.ReadMsg(buf); err != nil {
				t.Fatal(err)
			}
		}
		lows := 0
		for lows == 0 {
			select {
			case ev := <-c.Events():
				if ev.Kind == EventBufferedLow {
					if ev.Stream != 3 {
						t.Fatalf("EventBufferedLow for stream %d, want 3", ev.Stream)
					}
					lows++
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no EventBufferedLow; Buffered() = %d", st.Buffered())
			}
		}
		time.Sleep(time.Second) // virtual: every SACK is in
		if got := st.Buffered(); got != 0 {
			t.Errorf("Buffered() = %d once everything was acknowledged, want 0", got)
		}
		for {
			select {
			case ev := <-c.Events():
				if ev.Kind == EventBufferedLow {
					t.Fatalf("a second EventBufferedLow for one fall")
				}
				continue
			default:
			}
			break
		}
	})
}
