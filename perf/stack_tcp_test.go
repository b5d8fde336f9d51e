package perf

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestTCPFraming: the tcp stack delivers each message whole, with its
// stream id and PPID, messages of any size back to back, and refuses a
// message longer than the buffer given to Recv.
func TestTCPFraming(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := Lookup("tcp")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Transport: "udp", Streams: 1, MaxMsg: 200 << 10}
	ln, err := st.Listen(ctx, "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan Conn, 1)
	go func() {
		c, err := ln.Accept(ctx)
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	c, err := st.Dial(ctx, ln.Addr(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	if s == nil {
		return
	}
	defer s.Close()
	sizes := []int{0, 1, 11, 12, 13, 1452, 64 << 10, 200 << 10, 3}
	go func() {
		for i, n := range sizes {
			p := bytes.Repeat([]byte{byte(i + 1)}, n)
			if err := c.Send(p, uint16(i*1000), uint32(0xfeed0000+i)); err != nil {
				t.Error(err)
				return
			}
		}
		c.Send(make([]byte, 100), 0, 0) // longer than the last buffer
	}()
	buf := make([]byte, 200<<10)
	for i, want := range sizes {
		n, sid, ppid, err := s.Recv(buf)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if n != want || sid != uint16(i*1000) || ppid != uint32(0xfeed0000+i) ||
			!bytes.Equal(buf[:n], bytes.Repeat([]byte{byte(i + 1)}, want)) {
			t.Fatalf("message %d: %d bytes sid %d ppid %#x, want %d bytes of %d, sid %d ppid %#x",
				i, n, sid, ppid, want, i+1, i*1000, 0xfeed0000+i)
		}
	}
	if _, _, _, err := s.Recv(buf[:99]); !errors.Is(err, errTCPFrame) {
		t.Errorf("100-byte message into 99 bytes: %v, want errTCPFrame", err)
	}
}

// TestTCPRefusesStreamFeatures: the tcp stack (which TestSmoke runs
// every test on) refuses what a byte stream cannot do, and the server
// says why over the control connection.
func TestTCPRefusesStreamFeatures(t *testing.T) {
	addr := startServer(t)
	p := Params{Test: Stream, Stack: "tcp", Duration: 100 * time.Millisecond}
	p.Config.Sched = "wfq"
	if _, err := Run(t.Context(), addr, p, RunOptions{}); err == nil || !strings.Contains(err.Error(), ErrUnsupported.Error()) {
		t.Errorf("tcp with a scheduler: %v, want %q", err, ErrUnsupported)
	}
}
