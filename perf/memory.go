package perf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// MemoryParams describe a memory-mode run.
type MemoryParams struct {
	Stack     string `json:"stack"`
	Assocs    int    `json:"assocs"`         // associations held open at once
	Streams   int    `json:"streams"`        // streams negotiated each way
	Used      int    `json:"used"`           // streams that carry traffic
	MsgSize   int    `json:"msg_size"`       // bytes per message
	PerAssoc  int    `json:"msgs_per_assoc"` // messages each association carries in the traffic phase
	AllocMsgs int    `json:"alloc_msgs"`     // messages over which allocations are counted

	// IdleProfile, if set, receives a heap profile taken when every
	// association is up and idle.
	IdleProfile io.Writer `json:"-"`
	// TrafficProfile, if set, receives one taken after the traffic phase.
	TrafficProfile io.Writer `json:"-"`
}

// MemoryResult is what memory mode measures. Both ends of every
// association live in this process, so per-association figures are the
// process totals divided by twice the association count.
type MemoryResult struct {
	Params       MemoryParams `json:"params"`
	IdleHeap     float64      `json:"idle_heap_bytes_per_assoc"`
	TrafficHeap  float64      `json:"traffic_heap_bytes_per_assoc"` // after traffic, once idle again
	IdleStack    float64      `json:"idle_stack_bytes_per_assoc"`   // goroutine stacks
	Goroutines   float64      `json:"goroutines_per_assoc"`
	AllocsPerMsg float64      `json:"allocs_per_msg"`      // send and receive paths together
	BytesPerMsg  float64      `json:"alloc_bytes_per_msg"` // heap bytes allocated per message
	// SetupRate is associations set up per second: Assocs handshakes, 16
	// at a time, from the first INIT to the last Accept (both ends in
	// this process, so each costs both sides' work).
	SetupRate float64 `json:"setups_per_sec"`
	// IdleCPU is the process's CPU use (percent of one core) while every
	// association is up and idle, measured over idleCPUWindow after
	// idleSettle: the cost of timers and anything else that runs per
	// association without traffic.
	IdleCPU float64 `json:"idle_cpu_pct_of_core"`
}

// idleCPUWindow is how long memory mode watches the idle associations'
// CPU use. Heartbeats (RFC 9260 section 8.3, every 30 s plus RTO per idle
// path) are real protocol work: with n associations they cost about
// n/30 exchanges a second.
const idleCPUWindow = time.Second

// idleSettle is how long the associations are left after the last set-up
// before IdleCPU is measured: the work that follows a set-up once (usctp's
// PLPMTU search, RFC 8899: a few probes per association, spread over
// seconds when 1,000 searches start together) is not idleness.
const idleSettle = 3 * time.Second

func (p *MemoryParams) normalize() {
	if p.Assocs <= 0 {
		p.Assocs = 100
	}
	if p.Streams <= 0 {
		p.Streams = 10
	}
	if p.Used <= 0 || p.Used > p.Streams {
		p.Used = min(10, p.Streams)
	}
	if p.MsgSize <= 0 {
		p.MsgSize = 1452
	}
	if p.PerAssoc <= 0 {
		p.PerAssoc = 100
	}
	if p.AllocMsgs <= 0 {
		p.AllocMsgs = 5000
	}
}

type memSnap struct {
	heap, stack, mallocs, allocBytes uint64
	goroutines                       int
}

func snapMem() memSnap {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memSnap{heap: ms.HeapAlloc, stack: ms.StackInuse, mallocs: ms.Mallocs, allocBytes: ms.TotalAlloc, goroutines: runtime.NumGoroutine()}
}

// countAllocs reads the allocation counters without a collection.
func countAllocs() memSnap {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memSnap{mallocs: ms.Mallocs, allocBytes: ms.TotalAlloc}
}

// idleWait is how long after the last message arrived the associations
// are idle again: longer than the longest delayed SACK.
const idleWait = 600 * time.Millisecond

// Memory measures the heap an in-process stack spends per association,
// idle and after traffic, and its allocations per message.
func Memory(ctx context.Context, p MemoryParams) (*MemoryResult, error) {
	p.normalize()
	st, err := Lookup(p.Stack)
	if err != nil {
		return nil, err
	}
	if !st.InProcess() {
		return nil, fmt.Errorf("perf: memory mode: stack %s does not run in this process", p.Stack)
	}
	cfg := Config{Transport: "udp", Streams: p.Streams, MaxMsg: p.MsgSize}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	ln, err := st.Listen(ctx, "127.0.0.1:0", &cfg)
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	dial := func(ctx context.Context) (Conn, error) { return st.Dial(ctx, ln.Addr(), &cfg) }
	if ed, ok := st.(EndpointDialer); ok {
		d, err := ed.NewDialer(ctx, ln.Addr(), &cfg)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		dial = d.Dial
	}
	// The listener's and dialer's own sockets are not per-association
	// costs, nor is what their first association makes them keep (maps,
	// queues, waiter channels): one association warms them up first.
	wc, err := dial(ctx)
	if err != nil {
		return nil, err
	}
	defer wc.Close()
	ws, err := ln.Accept(ctx)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	base := snapMem()
	servers := make([]Conn, p.Assocs)
	acceptErr := make(chan error, 1)
	go func() {
		for i := range servers {
			c, err := ln.Accept(ctx)
			if err != nil {
				acceptErr <- err
				return
			}
			servers[i] = c
		}
		acceptErr <- nil
	}()
	clients := make([]Conn, p.Assocs)
	errs := make([]error, p.Assocs)
	setupStart := time.Now()
	var dwg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range clients {
		dwg.Add(1)
		sem <- struct{}{}
		go func() {
			defer dwg.Done()
			defer func() { <-sem }()
			clients[i], errs[i] = dial(ctx)
		}()
	}
	dwg.Wait()
	err = errors.Join(errs...)
	defer func() {
		for _, c := range clients {
			if c != nil {
				c.Close()
			}
		}
		for _, c := range servers {
			if c != nil {
				c.Close()
			}
		}
	}()
	if err != nil {
		return nil, err
	}
	if err := <-acceptErr; err != nil {
		return nil, err
	}
	setup := time.Since(setupStart)
	idle := snapMem()
	time.Sleep(idleSettle)
	cpu0 := markCPU()
	time.Sleep(idleCPUWindow)
	idleCPU := cpu0.since()
	if p.IdleProfile != nil {
		if err := pprof.Lookup("heap").WriteTo(p.IdleProfile, 0); err != nil {
			return nil, err
		}
	}

	// Traffic: every association carries PerAssoc messages over Used streams.
	// Accepted associations are not paired with dialled ones by index, so
	// every server side reads until the total arrives.
	msg := make([]byte, p.MsgSize)
	total := p.Assocs * p.PerAssoc
	var (
		mu       sync.Mutex
		received int
		allIn    = make(chan struct{})
		wg       sync.WaitGroup
	)
	for _, c := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, p.MsgSize)
			for {
				if _, _, _, err := c.Recv(buf); err != nil {
					return
				}
				mu.Lock()
				received++
				if received == total {
					close(allIn)
				}
				mu.Unlock()
			}
		}()
	}
	sendErr := make(chan error, len(clients))
	for _, c := range clients {
		go func() {
			for i := range p.PerAssoc {
				if err := c.Send(msg, uint16(i%p.Used), 0); err != nil {
					sendErr <- err
					return
				}
			}
			sendErr <- nil
		}()
	}
	for range clients {
		if err := <-sendErr; err != nil {
			return nil, err
		}
	}
	select {
	case <-allIn:
	case <-ctx.Done():
		return nil, fmt.Errorf("perf: memory mode: %d of %d messages arrived: %w", received, total, ctx.Err())
	}
	// Idle again: the receivers' delayed SACKs (RFC 9260 section 6.2: at
	// most 500 ms) acknowledge the last messages, and the senders give
	// back what the burst needed.
	time.Sleep(idleWait)
	traffic := snapMem()
	if p.TrafficProfile != nil {
		if err := pprof.Lookup("heap").WriteTo(p.TrafficProfile, 0); err != nil {
			return nil, err
		}
	}

	// Allocations per message on one association: first warm up, then count.
	c := clients[0]
	n := p.AllocMsgs
	mu.Lock()
	received, allIn = 0, make(chan struct{})
	total = n / 5
	mu.Unlock()
	for i := range n / 5 {
		if err := c.Send(msg, uint16(i%p.Used), 0); err != nil {
			return nil, err
		}
	}
	<-allIn
	mu.Lock()
	received, allIn, total = 0, make(chan struct{}), n
	mu.Unlock()
	// No collection between warm-up and count: steady state keeps its
	// caches (a GC here would empty the pools a resting association gave
	// its buffers to, and the count would show their refill).
	before := countAllocs()
	for i := range n {
		if err := c.Send(msg, uint16(i%p.Used), 0); err != nil {
			return nil, err
		}
	}
	select {
	case <-allIn:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	after := countAllocs()

	per := float64(2 * p.Assocs)
	r := &MemoryResult{
		Params:       p,
		IdleHeap:     (float64(idle.heap) - float64(base.heap)) / per,
		TrafficHeap:  (float64(traffic.heap) - float64(base.heap)) / per,
		IdleStack:    (float64(idle.stack) - float64(base.stack)) / per,
		Goroutines:   float64(idle.goroutines-base.goroutines) / per,
		AllocsPerMsg: float64(after.mallocs-before.mallocs) / float64(n),
		BytesPerMsg:  float64(after.allocBytes-before.allocBytes) / float64(n),
		SetupRate:    PerSecond(uint64(p.Assocs), setup),
		IdleCPU:      idleCPU.Util * float64(idleCPU.Cores),
	}
	return r, nil
}

// WriteMemory writes memory-mode results as a table.
func WriteMemory(w io.Writer, rs []*MemoryResult) {
	if len(rs) == 0 {
		return
	}
	p := rs[0].Params
	fmt.Fprintf(w, "Memory per association (one end): %d associations, %d streams each way, %d used, %d-byte messages\n", p.Assocs, p.Streams, p.Used, p.MsgSize)
	fmt.Fprintf(w, "%-12s %12s %12s %12s %10s %11s %12s %10s %9s\n", "stack", "idle heap B", "after B", "stacks B", "goroutines", "allocs/msg", "alloc B/msg", "setups/s", "idle CPU%")
	for _, r := range rs {
		fmt.Fprintf(w, "%-12s %12.0f %12.0f %12.0f %10.1f %11.2f %12.0f %10.0f %9.2f\n", r.Params.Stack, r.IdleHeap, r.TrafficHeap, r.IdleStack, r.Goroutines, r.AllocsPerMsg, r.BytesPerMsg, r.SetupRate, r.IdleCPU)
	}
	fmt.Fprintf(w, "(setups/s: associations set up per second, both ends in this process; idle CPU: %% of one core over %v with every association idle, %v after the last set-up)\n", idleCPUWindow, idleSettle)
}
