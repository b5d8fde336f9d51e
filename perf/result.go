package perf

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// The tests, named as netperf names them.
const (
	Stream     = "SCTP_STREAM"      // one association, one stream, bulk messages of MsgSize bytes
	StreamMany = "SCTP_STREAM_MANY" // bulk messages spread over Streams streams and Assocs associations
	RR         = "SCTP_RR"          // request/response of ReqSize and RespSize bytes, one at a time
	RRMany     = "SCTP_RR_MANY"     // request/response over Streams streams and Assocs associations at once
)

// Tests lists the test names in the order the documentation gives them.
var Tests = []string{Stream, StreamMany, RR, RRMany}

// Params describe one test run; the client sends them to the server.
type Params struct {
	Test      string        `json:"test"`
	Stack     string        `json:"stack"`
	Duration  time.Duration `json:"duration_ns"`
	MsgSize   int           `json:"msg_size,omitempty"`  // SCTP_STREAM*: bytes per message
	ReqSize   int           `json:"req_size,omitempty"`  // SCTP_RR*: request bytes
	RespSize  int           `json:"resp_size,omitempty"` // SCTP_RR*: response bytes
	Assocs    int           `json:"assocs"`              // associations
	Config    Config        `json:"config"`              // per-association settings (Streams is the number used)
	Interim   time.Duration `json:"interim_ns,omitempty"`
	PerStream bool          `json:"per_stream,omitempty"` // count bytes delivered per stream
}

// IsStream reports whether the test is a bulk-transfer test.
func (p *Params) IsStream() bool { return p.Test == Stream || p.Test == StreamMany }

// Limits on Params: a server takes its parameters from the network, and
// each message size becomes a buffer it allocates per association.
const (
	MaxMessageSize = 64 << 20 // bytes in a message, request or response
	MaxAssocs      = 65535    // associations of one test
	MaxShards      = 256      // server endpoints sharing the port
	MaxBuffer      = 1 << 30  // socket send and receive buffer sizes
	MinInterim     = 10 * time.Millisecond
)

// Normalize fills defaults and checks the parameters against the limits
// above; a server calls it on what a client sent.
func (p *Params) Normalize() error {
	switch p.Test {
	case "":
		p.Test = Stream
	case Stream, StreamMany, RR, RRMany:
	default:
		p.Test = strings.ToUpper(p.Test)
		if p.Test != Stream && p.Test != StreamMany && p.Test != RR && p.Test != RRMany {
			return fmt.Errorf("perf: unknown test %q (have %s)", p.Test, strings.Join(Tests, ", "))
		}
	}
	if p.Stack == "" {
		p.Stack = "usctp"
	}
	if p.Duration <= 0 {
		p.Duration = 10 * time.Second
	}
	if p.Assocs <= 0 {
		p.Assocs = 1
	}
	if p.Config.Transport == "" {
		p.Config.Transport = "udp"
	}
	if p.Config.Streams <= 0 {
		p.Config.Streams = 1
		if p.Test == StreamMany || p.Test == RRMany {
			p.Config.Streams = 65535
		}
	}
	if p.Config.Streams > 65535 {
		return fmt.Errorf("perf: %d streams: at most 65535", p.Config.Streams)
	}
	if p.Assocs > MaxAssocs {
		return fmt.Errorf("perf: %d associations: at most %d", p.Assocs, MaxAssocs)
	}
	if len(p.Config.Hosts) > 1 {
		if p.Stack != "usctp" || p.Config.Shards > 1 {
			return fmt.Errorf("perf: several server addresses (multi-homing): usctp without shards only, not %s", p.Stack)
		}
		if len(p.Config.Hosts) > 32 {
			return fmt.Errorf("perf: %d server addresses, at most 32", len(p.Config.Hosts))
		}
		for _, h := range p.Config.Hosts {
			if _, err := netip.ParseAddr(h); err != nil {
				return fmt.Errorf("perf: server address %q: %w", h, err)
			}
		}
	}
	if p.Config.Shards < 0 || p.Config.Shards > MaxShards {
		return fmt.Errorf("perf: %d shards: want 0 to %d", p.Config.Shards, MaxShards)
	}
	for _, b := range []struct {
		name string
		v    int
	}{{"send buffer", p.Config.SndBuf}, {"receive buffer", p.Config.RcvBuf}} {
		if b.v < 0 || b.v > MaxBuffer {
			return fmt.Errorf("perf: %s of %d bytes: want 0 (the stack's default) to %d", b.name, b.v, MaxBuffer)
		}
	}
	if p.Interim < 0 || p.Interim > 0 && p.Interim < MinInterim {
		return fmt.Errorf("perf: interim interval %v: want 0 (none) or at least %v", p.Interim, MinInterim)
	}
	if p.IsStream() {
		if p.MsgSize <= 0 {
			p.MsgSize = 1452
		}
		p.Config.MaxMsg = max(p.Config.MaxMsg, p.MsgSize)
	} else {
		if p.ReqSize <= 0 {
			p.ReqSize = 1
		}
		if p.RespSize <= 0 {
			p.RespSize = 1
		}
		p.Config.MaxMsg = max(p.Config.MaxMsg, p.ReqSize, p.RespSize)
	}
	for _, m := range []struct {
		name string
		v    int
	}{{"message", p.MsgSize}, {"request", p.ReqSize}, {"response", p.RespSize}, {"largest message", p.Config.MaxMsg}} {
		if m.v > MaxMessageSize {
			return fmt.Errorf("perf: %s size %d: at most %d bytes", m.name, m.v, MaxMessageSize)
		}
	}
	for _, v := range [][]uint16{p.Config.Weights, p.Config.Prios} {
		if len(v) > p.Config.Streams {
			return fmt.Errorf("perf: %d per-stream values for %d streams", len(v), p.Config.Streams)
		}
	}
	return nil
}

// Result is the outcome of one test run, as the table and -json show it.
type Result struct {
	Params Params `json:"params"`

	Elapsed      float64  `json:"elapsed_s"`                  // measured interval, seconds
	Bytes        uint64   `json:"bytes"`                      // payload bytes delivered to the receiver
	Messages     uint64   `json:"messages"`                   // messages delivered (STREAM) or sent both ways (RR)
	Transactions uint64   `json:"transactions,omitempty"`     // RR: completed request/response pairs
	Throughput   float64  `json:"throughput_mbps"`            // 10^6 bits/s of payload
	TransRate    float64  `json:"transactions_per_s"`         // RR: transactions per second
	Latency      Latency  `json:"latency"`                    // RR: transaction latency
	Local        CPU      `json:"cpu_local"`                  // the sending (STREAM) or requesting (RR) side
	Remote       CPU      `json:"cpu_remote"`                 // the server side
	PerStream    []uint64 `json:"per_stream_bytes,omitempty"` // bytes delivered on each stream (-v); STREAM: by the end of the timed run
	SendErrors   uint64   `json:"send_errors,omitempty"`
	// LocalStats and RemoteStats summarize the first association's
	// counters on each side, for stacks that keep them.
	LocalStats  string    `json:"stats_local,omitempty"`
	RemoteStats string    `json:"stats_remote,omitempty"`
	Interims    []Interim `json:"interim,omitempty"`
}

// Interim is a progress report during a run.
type Interim struct {
	At    float64 `json:"at_s"`   // seconds since the start of the run
	Span  float64 `json:"span_s"` // seconds covered by this report
	Bytes uint64  `json:"bytes"`  // bytes delivered in the span
	Trans uint64  `json:"trans"`  // transactions completed in the span
	Rate  float64 `json:"rate"`   // 10^6 bits/s (STREAM) or transactions/s (RR)
}

// CPU is the processor time one side used during a run.
type CPU struct {
	User   float64 `json:"user_s"`
	Sys    float64 `json:"sys_s"`
	Util   float64 `json:"util_pct"`       // percent of all of the host's CPUs, as netperf reports
	Cores  int     `json:"cores"`          // CPUs of the host
	Demand float64 `json:"service_demand"` // microseconds of CPU per KB (STREAM) or per transaction (RR)
}

// Latency holds transaction latency percentiles in microseconds.
type Latency struct {
	P50  float64 `json:"p50_us"`
	P90  float64 `json:"p90_us"`
	P99  float64 `json:"p99_us"`
	P999 float64 `json:"p999_us"`
	Max  float64 `json:"max_us"`
	Mean float64 `json:"mean_us"`
}

// Mbps returns the throughput in 10^6 bits per second of n bytes over d.
func Mbps(n uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) * 8 / d.Seconds() / 1e6
}

// PerSecond returns n events over d as a rate per second.
func PerSecond(n uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Primary returns the figure a test is judged by: 10^6 bits/s for the
// STREAM tests, transactions/s for the RR tests.
func (r *Result) Primary() float64 {
	if r.Params.IsStream() {
		return r.Throughput
	}
	return r.TransRate
}

// PrimaryUnit names the unit of Primary.
func (r *Result) PrimaryUnit() string { return primaryUnit(&r.Params) }

func primaryUnit(p *Params) string {
	if p.IsStream() {
		return "10^6bits/s"
	}
	return "Trans/s"
}

// finish computes the derived figures from the counts and CPU times.
func (r *Result) finish(elapsed time.Duration) {
	r.Elapsed = elapsed.Seconds()
	if r.Params.IsStream() {
		r.Throughput = Mbps(r.Bytes, elapsed)
		kb := float64(r.Bytes) / 1024
		r.Local.Demand = demand(r.Local, kb)
		r.Remote.Demand = demand(r.Remote, kb)
	} else {
		r.TransRate = PerSecond(r.Transactions, elapsed)
		r.Throughput = Mbps(r.Bytes, elapsed)
		n := float64(r.Transactions)
		r.Local.Demand = demand(r.Local, n)
		r.Remote.Demand = demand(r.Remote, n)
	}
}

// demand is netperf's service demand: microseconds of CPU per unit of work.
func demand(c CPU, units float64) float64 {
	if units <= 0 {
		return 0
	}
	return (c.User + c.Sys) * 1e6 / units
}
