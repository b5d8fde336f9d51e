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

// RunOptions are the client's own settings for Run.
type RunOptions struct {
	// OnInterim, if set, is called with each interim result (every
	// Params.Interim) while the test runs.
	OnInterim func(Interim)
}

// Run connects to the server whose control port is at ctlAddr, runs the
// test p against it and returns the result.
func Run(ctx context.Context, ctlAddr string, p Params, opt RunOptions) (*Result, error) {
	if err := p.Normalize(); err != nil {
		return nil, err
	}
	st, err := Lookup(p.Stack)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", ctlAddr)
	if err != nil {
		return nil, fmt.Errorf("perf: control connection to %s: %w (is sctpperf -server running?)", ctlAddr, err)
	}
	ctl := newCtl(nc)
	defer ctl.close()
	stopCtl := context.AfterFunc(ctx, func() { nc.Close() })
	defer stopCtl()

	if err := ctl.send(&ctlMsg{Op: "start", Params: &p}); err != nil {
		return nil, err
	}
	m, err := ctl.recv()
	if err != nil {
		return nil, err
	}
	if m.Op != "ready" {
		return nil, fmt.Errorf("perf: expected ready, got %q", m.Op)
	}
	host, _, _ := net.SplitHostPort(ctlAddr)
	dataAddr := net.JoinHostPort(host, strconv.Itoa(m.Port))

	conns, dialers, err := dialAll(ctx, st, dataAddr, &p)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
		for _, d := range dialers {
			d.Close()
		}
	}()
	if err != nil {
		return nil, err
	}

	// Control messages from the server while the test runs.
	res := &Result{Params: p}
	resultCh := make(chan *ctlMsg, 1)
	errCh := make(chan error, 1)
	go func() {
		for {
			m, err := ctl.recv()
			if err != nil {
				errCh <- err
				return
			}
			switch m.Op {
			case "interim":
				if m.Interim != nil {
					res.Interims = append(res.Interims, *m.Interim)
					if opt.OnInterim != nil {
						opt.OnInterim(*m.Interim)
					}
				}
			case "result":
				resultCh <- m
				return
			}
		}
	}()

	c := &clientSide{p: &p, conns: conns}
	cpu0 := markCPU()
	elapsed, err := c.run(ctx, opt)
	local := cpu0.since()
	if err != nil {
		return nil, err
	}
	if err := ctl.send(&ctlMsg{Op: "stop", Sent: c.sent.Load()}); err != nil {
		return nil, err
	}
	var sr *serverResult
	select {
	case m := <-resultCh:
		sr = m.Server
	case err := <-errCh:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if sr == nil {
		return nil, errors.New("perf: server sent no result")
	}
	if !p.IsStream() {
		res.Interims = c.interims
	}
	res.Local, res.Remote = local, sr.CPU
	res.LocalStats, res.RemoteStats = statsLine(conns[0]), sr.Stats
	res.PerStream = sr.PerStream
	if p.IsStream() {
		res.PerStream = sr.PerStreamRun
	}
	res.SendErrors = c.sendErrs.Load()
	if p.IsStream() {
		res.Bytes, res.Messages = sr.Bytes, sr.Messages
		if sr.Elapsed > 0 {
			elapsed = time.Duration(sr.Elapsed * float64(time.Second))
		}
		if !sr.Complete {
			return nil, fmt.Errorf("perf: %s: server received %d of %d bytes sent", p.Stack, sr.Bytes, c.sent.Load())
		}
	} else {
		res.Transactions = c.trans.Load()
		res.Bytes = c.trans.Load() * uint64(p.ReqSize+p.RespSize)
		res.Messages = 2 * res.Transactions
		res.Latency = c.hist.Latency()
	}
	res.finish(elapsed)
	return res, nil
}

// dialAll opens p.Assocs associations, several at a time: each from its
// own endpoint, or in turn from p.Endpoints endpoints when the stack has
// them (the caller closes the dialers after the associations).
func dialAll(ctx context.Context, st Stack, addr string, p *Params) ([]Conn, []Dialer, error) {
	conns := make([]Conn, p.Assocs)
	errs := make([]error, p.Assocs)
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var dialers []Dialer
	if ed, ok := st.(EndpointDialer); ok && p.Endpoints > 0 {
		for range min(p.Endpoints, p.Assocs) {
			d, err := ed.NewDialer(dctx, addr, &p.Config)
			if err != nil {
				for _, d := range dialers {
					d.Close()
				}
				return conns, nil, err
			}
			dialers = append(dialers, d)
		}
	}
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if dialers != nil {
				conns[i], errs[i] = dialers[i%len(dialers)].Dial(dctx)
			} else {
				conns[i], errs[i] = st.Dial(dctx, addr, &p.Config)
			}
		}()
	}
	wg.Wait()
	return conns, dialers, errors.Join(errs...)
}

// clientSide runs the sending half of a test.
type clientSide struct {
	p        *Params
	conns    []Conn
	stop     atomic.Bool
	sent     atomic.Uint64 // payload bytes accepted by Send
	trans    atomic.Uint64
	sendErrs atomic.Uint64

	mu       sync.Mutex
	hist     Histogram
	interims []Interim
	firstErr error
}

func (c *clientSide) fail(err error) {
	c.mu.Lock()
	if c.firstErr == nil && !c.stop.Load() {
		c.firstErr = err
	}
	c.mu.Unlock()
	c.stop.Store(true)
}

// run drives the workers for the test's duration and returns the time
// they ran.
func (c *clientSide) run(ctx context.Context, opt RunOptions) (time.Duration, error) {
	var wg sync.WaitGroup
	start := time.Now()
	timer := time.AfterFunc(c.p.Duration, func() { c.stop.Store(true) })
	defer timer.Stop()
	stopCtx := context.AfterFunc(ctx, func() { c.stop.Store(true) })
	defer stopCtx()

	streams := c.p.Config.Streams
	for i, conn := range c.conns {
		switch {
		case c.p.IsStream() && c.p.Config.Sched != "" && streams <= 64:
			// One sender per stream, so each stream's queue stays full
			// and the scheduler decides who goes first.
			for sid := range streams {
				wg.Add(1)
				go func() { defer wg.Done(); c.streamSender(conn, uint16(sid), 1) }()
			}
		case c.p.IsStream():
			wg.Add(1)
			go func() { defer wg.Done(); c.streamSender(conn, 0, streams) }()
		default:
			wg.Add(1)
			go func() { defer wg.Done(); c.requester(conn, uint16(i%streams), streams) }()
		}
	}
	var iwg sync.WaitGroup
	done := make(chan struct{})
	if c.p.Interim > 0 && !c.p.IsStream() {
		iwg.Add(1)
		go func() { defer iwg.Done(); c.rrInterims(done, opt) }()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(done)
	iwg.Wait()
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	return elapsed, c.firstErr
}

// streamSender sends MsgSize-byte messages, cycling over n streams from
// first, until stopped.
func (c *clientSide) streamSender(conn Conn, first uint16, n int) {
	msg := make([]byte, c.p.MsgSize)
	for i := range msg {
		msg[i] = byte(i)
	}
	sid := int(first)
	for !c.stop.Load() {
		if err := conn.Send(msg, uint16(sid), 0); err != nil {
			c.sendErrs.Add(1)
			c.fail(fmt.Errorf("perf: send on stream %d: %w", sid, err))
			return
		}
		c.sent.Add(uint64(len(msg)))
		if n > 1 {
			if sid++; sid >= int(first)+n {
				sid = int(first)
			}
		}
	}
}

// requester runs transactions one at a time, cycling over the streams.
func (c *clientSide) requester(conn Conn, sid uint16, streams int) {
	req := make([]byte, c.p.ReqSize)
	resp := make([]byte, max(c.p.RespSize, 1))
	var h Histogram
	defer func() { c.mu.Lock(); c.hist.Merge(&h); c.mu.Unlock() }()
	for !c.stop.Load() {
		t := time.Now()
		if err := conn.Send(req, sid, 0); err != nil {
			c.sendErrs.Add(1)
			c.fail(fmt.Errorf("perf: send request on stream %d: %w", sid, err))
			return
		}
		if _, _, _, err := conn.Recv(resp); err != nil {
			c.fail(fmt.Errorf("perf: receive response on stream %d: %w", sid, err))
			return
		}
		h.Record(time.Since(t))
		c.trans.Add(1)
		if streams > 1 {
			if sid++; int(sid) >= streams {
				sid = 0
			}
		}
	}
}

// rrInterims records the transactions completed in each interval until
// done closes.
func (c *clientSide) rrInterims(done <-chan struct{}, opt RunOptions) {
	eachInterim(c.p.Interim, done, c.trans.Load, func(in Interim, n uint64, span time.Duration) bool {
		in.Trans, in.Rate = n, PerSecond(n, span)
		c.interims = append(c.interims, in)
		if opt.OnInterim != nil {
			opt.OnInterim(in)
		}
		return true
	})
}
