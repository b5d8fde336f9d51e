package sctp

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestPcapDecodes captures an association's whole life (handshake, data
// both ways, shutdown) on both endpoints and decodes the files with
// cmd/sctpdump: no packet may be malformed.
func TestPcapDecodes(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build cmd/sctpdump")
	}
	dir := t.TempDir()
	lcfg := loopCfg()
	lcfg.Pcap = filepath.Join(dir, "server.pcap")
	l, dc := listenLoop(t, lcfg)
	dc.Pcap = filepath.Join(dir, "client.pcap")
	c := dialLoop(t, dc)
	s := accept(t, l)
	msg := make([]byte, 3000)
	for i := range 50 {
		if _, err := c.WriteMsg(msg[:1+i*60], SendInfo{Stream: uint16(i % 8), PPID: 5, Unordered: i%2 == 0}); err != nil {
			t.Fatal(err)
		}
		n, info, err := s.ReadMsg(msg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.WriteMsg(msg[:n], SendInfo{Stream: info.Stream}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.ReadMsg(msg); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	l.Close()
	udp := fmt.Sprint(dc.RemoteUDPPort)
	for _, f := range []string{dc.Pcap, lcfg.Pcap} {
		cmd := exec.Command(goTool, "run", "../cmd/sctpdump", "-stats", "-udp-port", udp, f)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sctpdump %s: %v\n%s", f, err, out)
		}
		m := regexp.MustCompile(`stats packets=(\d+) sctp=(\d+) chunks=\d+ malformed=0 `).FindSubmatch(out)
		if m == nil || string(m[1]) != string(m[2]) || string(m[1]) == "0" {
			t.Fatalf("sctpdump %s:\n%s", f, out)
		}
		t.Logf("%s: %s", filepath.Base(f), regexp.MustCompile(`stats .*`).Find(out))
	}
}
