package sctp

import (
	"testing"
	"time"
)

// PR-SCTP over real UDP loopback: negotiated by default on both sides (and
// off when either side disables it); messages written with a policy arrive
// like any other when nothing is lost; an unknown policy is refused.
func TestUDPPartialReliability(t *testing.T) {
	for _, disable := range []bool{false, true} {
		l, dc := listenLoop(t, nil)
		dc.DisablePartialReliability = disable
		c := dialLoop(t, dc)
		s := accept(t, l)
		if c.PartialReliability() == disable || s.PartialReliability() == disable {
			t.Fatalf("disabled on the dialer %v: negotiated %v / %v", disable, c.PartialReliability(), s.PartialReliability())
		}
		st := c.Stream(2)
		st.PR = MaxRetransmits(0)
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
		{Lifetime(1500 * time.Microsecond), PR{PRTTL, 2}, "ttl 2ms"},
		{Lifetime(-time.Second), PR{PRTTL, 0}, "ttl 0s"},
		{Lifetime(1 << 62), PR{PRTTL, 1<<31 - 1}, "ttl 596h31m23.647s"},
		{MaxRetransmits(-1), PR{PRRtx, 0}, "rtx 0"},
		{MaxRetransmits(5), PR{PRRtx, 5}, "rtx 5"},
		{Priority(7), PR{PRPrio, 7}, "prio 7"},
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
