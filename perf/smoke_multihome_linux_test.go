//go:build linux

package perf

import (
	"context"
	"net/netip"
	"testing"
	"time"
)

// sctpperf -H a,b: the usctp server listens on every address, the client
// dials them all, and the association has a path to each (Linux: all of
// 127/8 is the host's). A STREAM run over it moves data.
func TestSmokeMultihomed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := Config{Hosts: []string{"127.0.0.1", "127.0.0.2"}, Streams: 1, MaxMsg: 1452}
	st, err := Lookup("usctp")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := st.Listen(ctx, "127.0.0.1:0", &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := st.Dial(ctx, ln.Addr(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	paths := c.(*usctpConn).a.Paths()
	if len(paths) != 2 || paths[0].Addr.IP != netip.MustParseAddr("127.0.0.1") || paths[1].Addr.IP != netip.MustParseAddr("127.0.0.2") {
		t.Fatalf("paths %+v: want one to each server address", paths)
	}

	addr := startServer(t)
	p := Params{Test: Stream, Stack: "usctp", Duration: 200 * time.Millisecond}
	p.Config.Hosts = cfg.Hosts
	p.Config.SndBuf = 64 << 10
	r, err := Run(ctx, addr, p, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Primary() <= 0 {
		t.Errorf("multi-homed STREAM: %v %s", r.Primary(), r.PrimaryUnit())
	}
	p.Stack = "pion"
	if _, err := Run(ctx, addr, p, RunOptions{}); err == nil {
		t.Error("pion accepted several server addresses")
	}
}
