package sctp

import (
	"errors"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simnet"
)

// PR-SCTP over real UDP loopback: negotiated by default on both sides (and
// off when either side disables it); messages written with a policy arrive
// like any other when nothing is lost; an unknown policy is refused.
func TestUDPPartialReliability(t *testing.T) {
	for _, disable := range []bool{false, true} {
		l, dc := listenLoop(t, nil)
		dc.Extensions.DisablePartialReliability = disable
		c := dialLoop(t, dc)
		s := accept(t, l)
		if c.PartialReliability() == disable || s.PartialReliability() == disable {
			t.Fatalf("disabled on the dialer %v: negotiated %v / %v", disable, c.PartialReliability(), s.PartialReliability())
		}
		st := c.Stream(2)
		st.SetPR(MaxRetransmits(0))
		if _, err := st.Write([]byte("stream")); err != nil {
			t.Fatal(err)
		}
		for i, pr := range []PR{Lifetime(10 * time.Second), MaxRetransmits(3), Priority(1)} {
			if _, err := c.WriteMsg([]byte{byte(i)}, SendInfo{Stream: 1, PR: pr}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.WriteMsg([]byte("x"), SendInfo{PR: PR{Policy: 9}}); err == nil {
			t.Fatal("unknown PR policy accepted")
		}
		buf := make([]byte, 100)
		for range 4 {
			s.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, _, err := s.ReadMsg(buf); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
		s.Close()
	}
}

func TestPRHelpers(t *testing.T) {
	for _, tc := range []struct {
		pr   PR
		want PR
		s    string
	}{
		{Lifetime(1500 * time.Microsecond), PR{Policy: PRTTL, Value: 2}, "ttl 2ms"},
		{Lifetime(-time.Second), PR{Policy: PRTTL, Value: 0}, "ttl 0s"},
		{Lifetime(1 << 62), PR{Policy: PRTTL, Value: 1<<31 - 1}, "ttl 596h31m23.647s"},
		{MaxRetransmits(-1), PR{Policy: PRRtx, Value: 0}, "rtx 0"},
		{MaxRetransmits(5), PR{Policy: PRRtx, Value: 5}, "rtx 5"},
		{Priority(7), PR{Policy: PRPrio, Value: 7}, "prio 7"},
		{PR{}, PR{}, "reliable"},
	} {
		if tc.pr != tc.want || tc.pr.String() != tc.s {
			t.Errorf("%+v (%q), want %+v (%q)", tc.pr, tc.pr, tc.want, tc.s)
		}
	}
	for _, name := range []string{"none", "ttl", "rtx", "prio"} {
		if p, err := ParsePRPolicy(name); err != nil || p.String() != name {
			t.Errorf("ParsePRPolicy(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := ParsePRPolicy("sometimes"); err == nil {
		t.Error("ParsePRPolicy accepted an unknown name")
	}
}

// TestStreamReadAbortedMessage: the peer gives up (lifetime) a message
// whose first parts Stream.Read already returned. Read returns the parts
// that arrived, then 0 and ErrMessageAborted (no (0, nil)), and the next
// Read returns the stream's next message whole; ReadMsg reports the same
// as RecvInfo.Aborted, and each abandoned message is an
// EventPartialDeliveryAborted on its stream. With DATA (FORWARD-TSN) and
// I-DATA (I-FORWARD-TSN).
func TestStreamReadAbortedMessage(t *testing.T) {
	for _, il := range []bool{false, true} {
		t.Run(map[bool]string{false: "data", true: "idata"}[il], func(t *testing.T) {
			adj := func(c *Config) { c.Buffers.RecvBuffer = 16 << 10; c.Extensions.Interleaving = il }
			simPairCfg(t, simnet.LinkConfig{Delay: 10 * time.Millisecond}, adj, func(t *testing.T, c, s *Association) {
				s.ep.mu.Lock()
				sil := s.core.Interleaved()
				s.ep.mu.Unlock()
				if sil != il || !s.PartialReliability() {
					t.Fatalf("interleaving %v, PR-SCTP %v", sil, s.PartialReliability())
				}
				events := s.Events()
				big := make([]byte, 64<<10)
				for i := range big {
					big[i] = byte(i * 7)
				}
				if _, err := c.WriteMsg(big, SendInfo{Stream: 1, PR: Lifetime(300 * time.Millisecond)}); err != nil {
					t.Fatal(err)
				}
				if _, err := c.WriteMsg([]byte("next"), SendInfo{Stream: 1}); err != nil {
					t.Fatal(err)
				}
				st := s.Stream(1)
				st.SetReadDeadline(time.Now().Add(time.Minute))
				buf := make([]byte, 1000)
				n, err := st.Read(buf)
				if err != nil || n == 0 {
					t.Fatalf("first read: %d, %v", n, err)
				}
				got := append([]byte(nil), buf[:n]...)
				// No reads for a while: the window stays closed, the
				// lifetime passes, the sender gives the message up.
				time.Sleep(time.Second)
				for {
					n, err = st.Read(buf)
					got = append(got, buf[:n]...)
					if err != nil {
						break
					}
					if n == 0 {
						t.Fatal("Read returned 0, nil")
					}
				}
				if !errors.Is(err, ErrMessageAborted) || n != 0 {
					t.Fatalf("read after %d bytes: %d, %v; want 0, ErrMessageAborted", len(got), n, err)
				}
				if len(got) >= len(big) || string(got) != string(big[:len(got)]) {
					t.Fatalf("got %d bytes of the %d-byte message, not its prefix", len(got), len(big))
				}
				n, err = st.Read(buf)
				if err != nil || string(buf[:n]) != "next" {
					t.Fatalf("after the aborted message: %q, %v", buf[:n], err)
				}
				// ReadMsg: the same once more, seen as RecvInfo.Aborted.
				if _, err := c.WriteMsg(big, SendInfo{Stream: 2, PR: Lifetime(300 * time.Millisecond)}); err != nil {
					t.Fatal(err)
				}
				st2 := s.Stream(2)
				st2.SetReadDeadline(time.Now().Add(time.Minute))
				if _, info, err := st2.ReadMsg(buf); err != nil || info.EOR || info.Aborted {
					t.Fatalf("first part: %+v, %v", info, err)
				}
				time.Sleep(time.Second)
				for {
					n, info, err := st2.ReadMsg(buf)
					if err != nil || info.EOR {
						t.Fatalf("ReadMsg: %d, %+v, %v; want an Aborted part", n, info, err)
					}
					if info.Aborted {
						if n != 0 {
							t.Fatalf("Aborted with %d bytes", n)
						}
						break
					}
				}
				if st := s.Stats(); st.PartialDeliveriesAborted != 2 {
					t.Fatalf("PartialDeliveriesAborted %d, want 2", st.PartialDeliveriesAborted)
				}
				var aborted []uint16
				for len(aborted) < 2 {
					select {
					case ev := <-events:
						if ev.Kind == EventPartialDeliveryAborted {
							aborted = append(aborted, ev.Stream)
						}
					case <-time.After(time.Second):
						t.Fatalf("EventPartialDeliveryAborted on streams %v, want 1 and 2", aborted)
					}
				}
				if aborted[0] != 1 || aborted[1] != 2 {
					t.Fatalf("EventPartialDeliveryAborted on streams %v, want 1 then 2", aborted)
				}
			})
		})
	}
}
