package perf

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Serve is the netserver side: it accepts control connections on ln and
// runs the server half of each test a client asks for, one at a time per
// connection, on the stack the client names. It returns when ctx is done or
// ln fails.
func Serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctl := newCtl(c)
			defer ctl.close()
			if err := serveTest(ctx, ctl); err != nil {
				ctl.send(&ctlMsg{Op: "error", Err: err.Error()})
			}
		}()
	}
}

// serverSide holds the server's counters for one test.
type serverSide struct {
	p         *Params
	base      time.Time
	bytes     atomic.Uint64
	msgs      atomic.Uint64
	trans     atomic.Uint64
	first     atomic.Int64 // ns since base of the first message, +1 (0: none yet)
	last      atomic.Int64 // ns since base of the last message
	perStream []atomic.Uint64
}

func (s *serverSide) mark(n int, sid uint16) {
	t := int64(time.Since(s.base)) + 1
	s.first.CompareAndSwap(0, t)
	s.last.Store(t)
	s.bytes.Add(uint64(n))
	s.msgs.Add(1)
	if s.perStream != nil && int(sid) < len(s.perStream) {
		s.perStream[sid].Add(uint64(n))
	}
}

// startTimeout bounds the wait for a client's start message.
const startTimeout = time.Minute

func serveTest(ctx context.Context, ctl *ctlConn) error {
	ctl.c.SetReadDeadline(time.Now().Add(startTimeout))
	m, err := ctl.recv()
	if err != nil {
		return err
	}
	ctl.c.SetReadDeadline(time.Time{})
	if m.Op != "start" || m.Params == nil {
		return fmt.Errorf("expected start, got %q", m.Op)
	}
	p := m.Params
	if err := p.Normalize(); err != nil {
		return err
	}
	st, err := Lookup(p.Stack)
	if err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(ctl.c.LocalAddr().String())
	ln, err := st.Listen(ctx, net.JoinHostPort(host, "0"), &p.Config)
	if err != nil {
		return err
	}
	defer ln.Close()
	_, ps, _ := net.SplitHostPort(ln.Addr())
	port, _ := strconv.Atoi(ps)

	s := &serverSide{p: p, base: time.Now()}
	if p.PerStream {
		s.perStream = make([]atomic.Uint64, p.Config.Streams)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		mu    sync.Mutex
		conns []Conn
		wg    sync.WaitGroup
	)
	closeAll := func() {
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		conns = nil
		mu.Unlock()
	}
	defer func() { closeAll(); wg.Wait() }()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range p.Assocs {
			c, err := ln.Accept(runCtx)
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				if p.IsStream() {
					s.sink(c)
				} else {
					s.echo(c)
				}
			}()
		}
	}()

	cpu0 := markCPU()
	if err := ctl.send(&ctlMsg{Op: "ready", Port: port}); err != nil {
		return err
	}

	// Interim reports for the STREAM tests; RR clients count themselves.
	stopInterim := make(chan struct{})
	var iwg sync.WaitGroup
	if p.Interim > 0 && p.IsStream() {
		iwg.Add(1)
		go func() {
			defer iwg.Done()
			s.interims(ctl, stopInterim)
		}()
	}

	m, err = ctl.recv()
	close(stopInterim)
	iwg.Wait()
	if err != nil {
		return err
	}
	if m.Op != "stop" {
		return fmt.Errorf("expected stop, got %q", m.Op)
	}
	res := &serverResult{Complete: true}
	// Bytes per stream as the timed run ends, before the queues drain: with
	// a send buffer larger than the run delivers, these are the
	// scheduler's shares.
	for i := range s.perStream {
		res.PerStreamRun = append(res.PerStreamRun, s.perStream[i].Load())
	}
	if p.IsStream() {
		// Wait for what the client queued to arrive, as long as it keeps coming.
		lastBytes, lastProgress := s.bytes.Load(), time.Now()
		for s.bytes.Load() < m.Sent {
			time.Sleep(5 * time.Millisecond)
			if b := s.bytes.Load(); b != lastBytes {
				lastBytes, lastProgress = b, time.Now()
			} else if time.Since(lastProgress) > 3*time.Second {
				res.Complete = false
				break
			}
		}
	}
	res.CPU = cpu0.since()
	mu.Lock()
	if len(conns) > 0 {
		res.Stats = statsLine(conns[0])
	}
	mu.Unlock()
	cancel()
	closeAll()
	wg.Wait()
	res.Bytes, res.Messages, res.Trans = s.bytes.Load(), s.msgs.Load(), s.trans.Load()
	if f := s.first.Load(); f > 0 {
		res.Elapsed = time.Duration(s.last.Load() - f).Seconds()
	}
	for i := range s.perStream {
		res.PerStream = append(res.PerStream, s.perStream[i].Load())
	}
	return ctl.send(&ctlMsg{Op: "result", Server: res})
}

// sink receives and counts messages until the association closes.
func (s *serverSide) sink(c Conn) {
	buf := make([]byte, s.p.Config.MaxMsg)
	for {
		n, sid, _, err := c.Recv(buf)
		if err != nil {
			return
		}
		s.mark(n, sid)
	}
}

// echo answers every request with a response of RespSize bytes on the
// request's stream.
func (s *serverSide) echo(c Conn) {
	buf := make([]byte, s.p.Config.MaxMsg)
	resp := make([]byte, s.p.RespSize)
	for {
		n, sid, ppid, err := c.Recv(buf)
		if err != nil {
			return
		}
		s.mark(n, sid)
		if err := c.Send(resp, sid, ppid); err != nil {
			if !errors.Is(err, net.ErrClosed) {
				return
			}
			return
		}
		s.trans.Add(1)
	}
}

// interims sends the bytes received in each interval until stop closes.
func (s *serverSide) interims(ctl *ctlConn, stop <-chan struct{}) {
	eachInterim(s.p.Interim, stop, s.bytes.Load, func(in Interim, n uint64, span time.Duration) bool {
		in.Bytes, in.Rate = n, Mbps(n, span)
		return ctl.send(&ctlMsg{Op: "interim", Interim: &in}) == nil
	})
}

// eachInterim calls emit every d, until stop closes or emit returns false,
// with the interval's place in the run (At and Span set), how much count
// grew in it and its length.
func eachInterim(d time.Duration, stop <-chan struct{}, count func() uint64, emit func(in Interim, n uint64, span time.Duration) bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	start := time.Now()
	prevAt, prev := start, count()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			n, span := count(), now.Sub(prevAt)
			in := Interim{At: now.Sub(start).Seconds(), Span: span.Seconds()}
			grew := n - prev
			prevAt, prev = now, n
			if !emit(in, grew, span) {
				return
			}
		}
	}
}
