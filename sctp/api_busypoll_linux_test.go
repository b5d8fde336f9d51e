//go:build linux

package sctp

import (
	"runtime"
	"testing"
	"time"
)

func TestBusyPollDefault(t *testing.T) {
	if d := (*Config)(nil).withDefaults().BusyPoll; d != DefaultBusyPoll {
		t.Errorf("default BusyPoll %v, want %v", d, DefaultBusyPoll)
	}
	if d := (&Config{BusyPoll: -1}).withDefaults().BusyPoll; d >= 0 {
		t.Errorf("BusyPoll -1 became %v", d)
	}
}

// TestUDPBusyPoll: request/response between an endpoint that busy-polls
// (with a budget longer than any wait here) and one that does not
// (negative BusyPoll): the first polls and its polls find the requests,
// the second never polls.
func TestUDPBusyPoll(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("busy polling is off with GOMAXPROCS 1")
	}
	lc := loopCfg()
	lc.BusyPoll = time.Hour
	l, dc := listenLoop(t, lc)
	dc.BusyPoll = -1
	c := dialLoop(t, dc)
	defer c.Close()
	s := accept(t, l)
	go func() {
		buf := make([]byte, 64)
		for {
			n, info, err := s.ReadMsg(buf)
			if err != nil {
				return
			}
			if _, err := s.WriteMsg(buf[:n], SendInfo{Stream: info.Stream}); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 64)
	// A read polls when it finds the socket empty; on a loaded machine the
	// request is often there already, so the trips go on until 10 polls
	// found data.
	for i := 0; i < 300 || l.SocketStats().BusyPollHits < 10 && i < 20000; i++ {
		if _, err := c.WriteMsg([]byte{byte(i)}, SendInfo{Stream: 1}); err != nil {
			t.Fatal(err)
		}
		if n, _, err := c.ReadMsg(buf); err != nil || n != 1 || buf[0] != byte(i) {
			t.Fatalf("response %d: %d bytes %x, %v", i, n, buf[:n], err)
		}
	}
	ls, cs := l.SocketStats(), c.Endpoint().SocketStats()
	t.Logf("listener: %d busy polls, %d found data", ls.BusyPolls, ls.BusyPollHits)
	if ls.BusyPolls == 0 || ls.BusyPollHits == 0 {
		t.Errorf("the busy-polling endpoint: %d polls, %d found data; want some", ls.BusyPolls, ls.BusyPollHits)
	}
	if cs.BusyPolls != 0 {
		t.Errorf("the endpoint with BusyPoll -1 polled %d times", cs.BusyPolls)
	}
}
