package perf

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Stack is one SCTP implementation that perf measures. A stack opens
// associations that carry whole messages tagged with a stream id and a
// payload protocol identifier; everything else (transport, buffers,
// scheduler) comes from the Config.
type Stack interface {
	// Name returns the name the -stack flag selects this stack by.
	Name() string
	// InProcess reports whether the stack's associations live in this
	// process's heap, so memory mode can measure them.
	InProcess() bool
	// Listen opens the passive side on addr ("host:port", port 0 picks one).
	Listen(ctx context.Context, addr string, cfg *Config) (Listener, error)
	// Dial opens one association to addr.
	Dial(ctx context.Context, addr string, cfg *Config) (Conn, error)
}

// Checker is implemented by stacks that can tell before a run whether
// they can do what cfg asks on this machine (the kernel stack: SCTP in the
// kernel, and UDP encapsulation when asked). Compare asks every stack
// before its first round, so a stack that cannot run fails at once, not
// after rounds of the others.
type Checker interface {
	Check(cfg *Config) error
}

// Listener accepts associations for a Stack.
type Listener interface {
	// Accept waits for the next association to be established.
	Accept(ctx context.Context) (Conn, error)
	// Addr returns the address peers dial, as "host:port".
	Addr() string
	// Close stops accepting; associations already accepted stay open.
	Close() error
}

// Conn is one association of a Stack, used by one sending and one
// receiving goroutine at a time.
type Conn interface {
	// Send queues p as one message on stream sid with the given PPID,
	// blocking while the stack's send buffer is full.
	Send(p []byte, sid uint16, ppid uint32) error
	// Recv reads the next whole message into p.
	Recv(p []byte) (n int, sid uint16, ppid uint32, err error)
	// Close ends the association (gracefully where the stack can).
	Close() error
}

// StatsReporter is implemented by a Conn that can summarize its
// association's counters in one line; -v prints it for both sides.
type StatsReporter interface {
	StatsLine() string
}

// statsLine returns c's counters, or "" if it has none.
func statsLine(c Conn) string {
	if s, ok := c.(StatsReporter); ok {
		return s.StatsLine()
	}
	return ""
}

// EndpointDialer is implemented by stacks that can open many associations
// from one local endpoint (one socket); memory mode uses it so that the
// figures are per association, not per socket.
type EndpointDialer interface {
	NewDialer(ctx context.Context, addr string, cfg *Config) (Dialer, error)
}

// Dialer opens associations from one local endpoint to one address.
type Dialer interface {
	Dial(ctx context.Context) (Conn, error)
	Close() error
}

// Config is what a test asks of a stack for each association.
type Config struct {
	Transport  string   `json:"transport"`            // "udp" (RFC 6951 encapsulation, the default) or "ip"
	Streams    int      `json:"streams"`              // streams used and negotiated each way (1..65535)
	SndBuf     int      `json:"sndbuf,omitempty"`     // send buffer in bytes; 0 means the stack's default
	RcvBuf     int      `json:"rcvbuf,omitempty"`     // receive buffer (advertised window) in bytes; 0 means default
	MaxMsg     int      `json:"max_msg"`              // largest message the test sends or receives
	Sched      string   `json:"sched,omitempty"`      // stream scheduler name (sctp.ParseScheduler); "" means the stack's default
	Interleave bool     `json:"interleave,omitempty"` // negotiate I-DATA (RFC 8260)
	Weights    []uint16 `json:"weights,omitempty"`    // per-stream weights for wfq/fc, stream i gets Weights[i]
	Prios      []uint16 `json:"prios,omitempty"`      // per-stream priorities for prio, stream i gets Prios[i]
	// BusyPoll is usctp's sctp.Config.BusyPoll: 0 means its default,
	// negative no busy polling. Other stacks ignore it.
	BusyPoll time.Duration `json:"busy_poll,omitempty"`
	// Shards is the number of usctp server endpoints that share the
	// listening UDP port (sctp.ListenShards, SO_REUSEPORT): 0 or 1 is one
	// endpoint. Other stacks ignore it.
	Shards int `json:"shards,omitempty"`
	// MTU is usctp's sctp.Config.MTU, the path MTU (the upper bound of
	// path MTU discovery); 0 means its default. NoPMTUD turns path MTU
	// discovery off (sctp.Config.DisablePMTUDiscovery). Other stacks
	// ignore both.
	MTU     int  `json:"mtu,omitempty"`
	NoPMTUD bool `json:"no_pmtud,omitempty"`
	// SendBudget is usctp's sctp.Config.Limits.SendBudget, the bytes all the
	// associations of an endpoint hold together in their send buffers: 0
	// means its default, negative none. Other stacks ignore it.
	SendBudget int `json:"send_budget,omitempty"`
	// RecvBudget is usctp's sctp.Config.Limits.RecvBudget, the receive window
	// the associations of an endpoint advertise together while several
	// receive (0 or negative: none, the default).
	RecvBudget int `json:"recv_budget,omitempty"`
	// Hosts are the server's IP addresses for a multi-homed association
	// (sctpperf -H a,b): the usctp server listens on all of them and the
	// client dials them all, one path each. Other stacks refuse more than
	// one.
	Hosts []string `json:"hosts,omitempty"`
}

// ErrUnsupported is returned (wrapped) when a stack cannot do what a
// Config or a test asks.
var ErrUnsupported = errors.New("not supported by this stack")

var (
	stacksMu sync.Mutex
	stacks   = map[string]Stack{}
)

// Register makes a stack available by its name; a later registration of
// the same name replaces the earlier one.
func Register(s Stack) {
	stacksMu.Lock()
	defer stacksMu.Unlock()
	stacks[s.Name()] = s
}

// Lookup returns the stack registered under name.
func Lookup(name string) (Stack, error) {
	stacksMu.Lock()
	defer stacksMu.Unlock()
	s, ok := stacks[name]
	if !ok {
		return nil, fmt.Errorf("perf: unknown stack %q (have %s)", name, strings.Join(stackNamesLocked(), ", "))
	}
	return s, nil
}

// Stacks returns the names of the registered stacks, sorted.
func Stacks() []string {
	stacksMu.Lock()
	defer stacksMu.Unlock()
	return stackNamesLocked()
}

func stackNamesLocked() []string {
	names := make([]string, 0, len(stacks))
	for n := range stacks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
