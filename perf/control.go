package perf

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"sync"
)

// The control connection is TCP, as netperf's is: the client sends the
// test's Params, the server opens the data listener and answers with its
// port, reports progress during the run and its own counts at the end.
// Messages are JSON objects, one per line.

// DefaultPort is the control port the server listens on, netperf's.
const DefaultPort = 12865

// ctlMsg is one control message; Op says which fields are set.
type ctlMsg struct {
	Op      string        `json:"op"` // start, ready, interim, stop, result, error
	Params  *Params       `json:"params,omitempty"`
	Port    int           `json:"port,omitempty"`    // ready: data port
	Sent    uint64        `json:"sent,omitempty"`    // stop: payload bytes the client sent
	Interim *Interim      `json:"interim,omitempty"` // interim
	Server  *serverResult `json:"server,omitempty"`  // result
	Err     string        `json:"err,omitempty"`     // error
}

// serverResult is the server's side of a run.
type serverResult struct {
	Bytes     uint64   `json:"bytes"`
	Messages  uint64   `json:"messages"`
	Trans     uint64   `json:"trans"`
	Elapsed   float64  `json:"elapsed_s"` // first to last message received (STREAM)
	CPU       CPU      `json:"cpu"`
	PerStream []uint64 `json:"per_stream,omitempty"`
	// PerStreamRun is PerStream when the client stopped sending.
	PerStreamRun []uint64 `json:"per_stream_run,omitempty"`
	Complete     bool     `json:"complete"`        // every byte the client sent arrived
	Stats        string   `json:"stats,omitempty"` // the first association's counters
}

type ctlConn struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex // serializes writes
}

func newCtl(c net.Conn) *ctlConn { return &ctlConn{c: c, r: bufio.NewReader(c)} }

func (c *ctlConn) send(m *ctlMsg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.c.Write(b)
	return err
}

// maxCtlLine bounds a control message: the largest, a result with bytes per
// stream for 65535 streams twice, takes under 2 MiB.
const maxCtlLine = 8 << 20

// errCtlTooLong is the error for a control message longer than maxCtlLine.
var errCtlTooLong = fmt.Errorf("perf: control message longer than %d bytes", maxCtlLine)

func (c *ctlConn) recv() (*ctlMsg, error) {
	var line []byte
	for {
		part, err := c.r.ReadSlice('\n')
		if len(line)+len(part) > maxCtlLine {
			return nil, errCtlTooLong
		}
		line = append(line, part...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return nil, err
		}
	}
	m := new(ctlMsg)
	if err := json.Unmarshal(line, m); err != nil {
		return nil, fmt.Errorf("perf: bad control message: %w", err)
	}
	if m.Op == "error" {
		return nil, fmt.Errorf("perf: server: %s", m.Err)
	}
	return m, nil
}

func (c *ctlConn) close() error { return c.c.Close() }
