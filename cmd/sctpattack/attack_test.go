package main

import (
	"bytes"
	"context"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"

	"github.com/usctp/usctp/internal/testsupport"
)

// echoTarget runs an echo server on an in-process endpoint over UDP
// encapsulation on loopback, serving every association at once, and
// returns its SCTP address and UDP port.
func echoTarget(t *testing.T) (netip.AddrPort, int) {
	t.Helper()
	return echoTargetWith(t, &sctp.Config{})
}

// echoTargetWith is echoTarget with the endpoint's configuration cfg.
func echoTargetWith(t *testing.T, cfg *sctp.Config) (netip.AddrPort, int) {
	t.Helper()
	s := startEcho(t, *cfg, false)
	return s.addr, s.port
}

// peakHeap samples the heap in use every 20 ms until stop is closed and
// returns the highest value seen.
func peakHeap(stop <-chan struct{}) uint64 {
	var peak uint64
	var m runtime.MemStats
	for {
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
		select {
		case <-stop:
			return peak
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// heapInUse returns the heap in use after a garbage collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestPatterns runs every attack pattern briefly against an in-process
// echo endpoint while a legitimate client has 64 KiB echoed again and
// again: the client must complete every round, in reasonable time, and the
// heap must stay bounded during the attack, not only after it. (The long
// runs: make hostile.)
//
// Each pattern gets an echo endpoint of its own: the endpoint's answers
// without an association are rate-limited per source (Config.Limits.InitRate),
// and the flooding patterns would otherwise leave the limiter empty for
// the next one, whose handshakes (and the legitimate client's, from the
// same address) would then wait for retransmissions.
func TestPatterns(t *testing.T) {
	for _, pat := range patterns {
		t.Run(pat.name, func(t *testing.T) {
			addr, port := echoTarget(t)
			before := heapInUse()
			o := &options{target: addr, udpPort: port, duration: 500 * time.Millisecond, rate: 0, legitBytes: 64 << 10, seed: 7}
			stop, peak := make(chan struct{}), make(chan uint64)
			go func() { peak <- peakHeap(stop) }()
			r, err := attack(context.Background(), o, pat)
			close(stop)
			top := <-peak
			if err != nil {
				t.Fatal(err)
			}
			t.Log(r)
			if r.legitErr != nil || len(r.legit) == 0 || len(r.legit) != r.legitRuns {
				t.Fatalf("legitimate client: %d of %d rounds, %v", len(r.legit), r.legitRuns, r.legitErr)
			}
			limit := 2 * time.Second
			if testsupport.RaceEnabled {
				limit = 10 * time.Second
			}
			for _, d := range r.legit {
				if d > limit {
					t.Errorf("legitimate client took %v for 64 KiB", d)
				}
			}
			if top > before+48<<20 {
				t.Errorf("heap in use reached %d MB during the attack, %d MB before", top>>20, before>>20)
			}
			// The attack happened: a host loaded by the race detector and
			// other tests sends far fewer in the half second.
			atLeast := int64(50)
			if testsupport.RaceEnabled {
				atLeast = 10
			}
			if !pat.reflection() && r.sent.packets < atLeast {
				t.Errorf("the attack sent only %d packets", r.sent.packets)
			}
			if h := heapInUse(); h > before+16<<20 {
				t.Errorf("heap in use %d MB, %d MB before the attacks", h>>20, before>>20)
			}
		})
	}
}

// TestAmplify: the answers to single packets stay small, in particular the
// INIT ACK to a minimal INIT (a cookie of 73 bytes): under 4 times the
// INIT, the reflection factor the README states.
func TestAmplify(t *testing.T) {
	addr, port := echoTarget(t)
	var out bytes.Buffer
	if err := amplify(&options{target: addr, udpPort: port, seed: 3}, &out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
		f := strings.Fields(line)
		factor, err := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-1], "x"), 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if factor > 4 {
			t.Errorf("%s: answer %.2f times the trigger", strings.Join(f[:len(f)-3], " "), factor)
		}
		if strings.HasPrefix(line, "INIT, no parameters") && factor < 1 {
			t.Errorf("no INIT ACK to an INIT: %q", line)
		}
	}
}

// TestUsage: bad command lines exit 2.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-patterns", "nope", "127.0.0.1:1"}, {"not-an-address"}, {"-rate", "-1", "127.0.0.1:1"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
}
