package main

import (
	"context"
	"net"
	"net/netip"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/usctp/usctp/internal/testsupport"
	"github.com/usctp/usctp/sctp"
)

// echoServer is an echo endpoint in process over UDP encapsulation on
// loopback, serving every association at once. One started with keep
// keeps the associations it accepted, ended or not, so that a test can
// read their Stats; one without (a target of many short attacks) lets
// them go.
type echoServer struct {
	addr netip.AddrPort
	port int
	ep   *sctp.Endpoint
	mu   sync.Mutex
	as   []*sctp.Association
}

// newEchoServer starts an echo endpoint with cfg (EphemeralUDPPort set)
// that keeps its associations.
func newEchoServer(t *testing.T, cfg sctp.Config) *echoServer {
	t.Helper()
	return startEcho(t, cfg, true)
}

// startEcho starts an echo endpoint with cfg (EphemeralUDPPort set).
func startEcho(t *testing.T, cfg sctp.Config, keep bool) *echoServer {
	t.Helper()
	// The system picks the UDP port as it binds: a port found free
	// beforehand may be taken by another test process before the bind.
	cfg.EphemeralUDPPort = true
	addr := netip.MustParseAddrPort("127.0.0.1:7100")
	l, err := sctp.Listen(addr.String(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &echoServer{addr: addr, port: int(l.Addr().UDPPort), ep: l}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		l.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			as, err := l.AcceptContext(ctx)
			if err != nil {
				return
			}
			if keep {
				s.mu.Lock()
				s.as = append(s.as, as)
				s.mu.Unlock()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer as.Close()
				stop := context.AfterFunc(ctx, func() { as.Abort("test over") })
				defer stop()
				buf := make([]byte, 64<<10)
				for {
					n, info, err := as.ReadMsg(buf)
					if err != nil {
						return
					}
					if _, err := as.WriteMsg(buf[:n], sctp.SendInfo{Stream: info.Stream, PPID: info.PPID}); err != nil {
						return
					}
				}
			}()
		}
	}()
	return s
}

// stats returns the Stats of every association the server accepted, in
// the order it accepted them (a server started with keep).
func (s *echoServer) stats() []sctp.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sctp.Stats
	for _, as := range s.as {
		out = append(out, as.Stats())
	}
	return out
}

// flood runs n flowfrags attackers against s until the returned stop is
// called, which waits for them. An attacker whose handshake fails (a
// loaded host, or the endpoint refusing it with its memory budget nearly
// spent) tries again.
func flood(t *testing.T, s *echoServer, n int) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	target := net.UDPAddrFromAddrPort(netip.AddrPortFrom(s.addr.Addr(), uint16(s.port)))
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for try := uint64(0); ctx.Err() == nil; try++ {
				p, err := newPeer(target, s.addr.Port(), uint64(100+i)+try<<8)
				if err != nil {
					t.Error(err)
					return
				}
				err = flowFrags(ctx, p, func() bool { return ctx.Err() == nil })
				p.Close()
				if err != nil && ctx.Err() == nil {
					t.Logf("attacker %d: %v; again", i, err)
				}
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		}()
	}
	return func() { cancel(); wg.Wait() }
}

// patience is how long a test waits for the attackers to be under way.
const patience = time.Minute

// attackers waits until n associations besides the first one accepted hold
// data, so that the attack is under way.
func (s *echoServer) attackers(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		held := 0
		for _, st := range s.stats()[1:] {
			if st.RecvBuffered > 0 {
				held++
			}
		}
		if held >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d attackers hold data after %v", held, n, patience)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// budgetFilled waits until the endpoint's budget holds at least n bytes
// and grew by less than 1% in the last half second: the attackers took
// what they can.
func (s *echoServer) budgetFilled(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(patience)
	var last []int
	for {
		used := s.ep.Stats().MemoryInUse
		last = append(last, used)
		if k := len(last); used >= n && k > 50 && used-last[k-51] < used/100 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the attackers filled %d bytes of the budget in %v, want %d and settled", used, patience, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// echoTimes has 1 MiB echoed on as rounds times, each in two halves with
// pause between them, and returns the median time.
func echoTimes(t *testing.T, as *sctp.Association, rounds int, pause time.Duration) time.Duration {
	t.Helper()
	var d []time.Duration
	for range rounds {
		start := time.Now()
		if err := echoRange(as, 0, 1<<19, 1<<20); err != nil {
			t.Fatal(err)
		}
		time.Sleep(pause)
		if err := echoRange(as, 1<<19, 1<<20, 1<<20); err != nil {
			t.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// TestFlowFragsFairness: six peers that keep to the flow control while
// they send 1-byte first fragments over 65535 streams, never letting a
// message complete, do not slow down a legitimate association of the same
// endpoint: its 1 MiB echoes, with a pause half way in which the
// attackers take what they can, take at most 1.5 times as long as alone
// (medians of three, measured in the same run; a starved association
// waits a second or more for a zero window probe). With the default
// MemoryBudget the attackers cannot fill it; with a 12 MiB one they do,
// and the legitimate association lives on its minimum share.
func TestFlowFragsFairness(t *testing.T) {
	for _, c := range []struct {
		name   string
		budget int
	}{{"DefaultBudget", 0}, {"SmallBudget", 12 << 20}} {
		t.Run(c.name, func(t *testing.T) {
			var cfg sctp.Config
			cfg.Limits.MemoryBudget = c.budget
			s := newEchoServer(t, cfg)
			as, err := sctp.Dial(context.Background(), s.addr.String(), &sctp.Config{RemoteUDPPort: uint16(s.port)})
			if err != nil {
				t.Fatal(err)
			}
			defer as.Close()
			const pause = 300 * time.Millisecond
			echoTimes(t, as, 1, 0) // warm up: windows and buffers grown
			alone := echoTimes(t, as, 3, pause)
			stop := flood(t, s, 6)
			if c.budget > 0 {
				// The first ones fill it; those after are refused.
				s.budgetFilled(t, c.budget*3/4)
			} else {
				s.attackers(t, 6)
			}
			under := echoTimes(t, as, 3, pause)
			stop()
			st := s.ep.Stats()
			t.Logf("1 MiB echo: %v alone, %v under attack; budget %d of %d", alone, under, st.MemoryInUse, st.MemoryBudget)
			// The race detector slows the attackers' goroutines in this
			// process more than the endpoint's: the run checks the code
			// under it, the times only without it.
			if under > alone*3/2 && !testsupport.RaceEnabled {
				t.Errorf("1 MiB echo took %v under attack, %v alone", under, alone)
			}
		})
	}
}

// TestFlowFragsMemory: six associations sending 1-byte first fragments
// over 65535 streams within their windows, with the default
// configuration, each cost the endpoint at most 8 MB of heap, and
// Stats.RecvMemory accounts for what they hold: about twice the receive
// buffer each, and the heap grows by no more than twice their total plus
// the fixed cost of the associations (their 65535 stream records).
func TestFlowFragsMemory(t *testing.T) {
	s := newEchoServer(t, sctp.Config{})
	as, err := sctp.Dial(context.Background(), s.addr.String(), &sctp.Config{RemoteUDPPort: uint16(s.port)})
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	before := heapInUse()
	stop := flood(t, s, 6)
	s.attackers(t, 6)
	// They go on as the window lets them: the peak is what counts.
	peakc, done := make(chan uint64), make(chan struct{})
	go func() { peakc <- peakHeap(done) }()
	time.Sleep(3 * time.Second)
	close(done)
	peak := <-peakc
	after := heapInUse()
	var recvMem int
	for _, st := range s.stats()[1:] {
		recvMem += st.RecvMemory
		// Twice the buffer, and what a reader blocked on its writes lets
		// the partial deliveries queue (parts and their ends) beyond it.
		if limit := 2*defaultRecvBuffer + defaultRecvBuffer/4; st.RecvMemory > limit {
			t.Errorf("an attacker's association holds %d bytes of memory (RecvBuffered %d), limit %d", st.RecvMemory, st.RecvBuffered, limit)
		}
	}
	stop()
	t.Logf("heap %d MB before, %d MB peak, %d MB with six attackers; RecvMemory %d MB in all", before>>20, peak>>20, after>>20, recvMem>>20)
	if grew := int64(after) - int64(before); grew > 6*8<<20 {
		t.Errorf("six attackers grew the heap by %d MB", grew>>20)
	}
	if grew := int64(peak) - int64(before); grew > 6*8<<20+16<<20 {
		t.Errorf("six attackers grew the heap by %d MB at its peak", grew>>20)
	}
	if grew := int64(after) - int64(before); grew > int64(2*recvMem)+6<<20 {
		t.Errorf("the heap grew by %d MB, the attackers' RecvMemory is %d MB", grew>>20, recvMem>>20)
	}
	runtime.KeepAlive(as)
}

// defaultRecvBuffer is sctp's default receive buffer (Buffers.RecvBuffer):
// the attackers read nothing, so autotuning never grows it.
const defaultRecvBuffer = 1 << 20
