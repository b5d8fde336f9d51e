package perf

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestMbpsAndRate(t *testing.T) {
	// 125 MB in 1 s is 1000 * 10^6 bits/s; netperf counts 10^6, not 2^20.
	if got := Mbps(125_000_000, time.Second); got != 1000 {
		t.Errorf("Mbps = %v, want 1000", got)
	}
	if got := Mbps(1452*1000, 2*time.Second); !near(got, 5.808, 1e-9) {
		t.Errorf("Mbps = %v, want 5.808", got)
	}
	if got := PerSecond(25000, 500*time.Millisecond); got != 50000 {
		t.Errorf("PerSecond = %v, want 50000", got)
	}
	if Mbps(1, 0) != 0 || PerSecond(1, -1) != 0 {
		t.Error("zero or negative duration must give 0")
	}
}

func TestCPUBetween(t *testing.T) {
	t0 := time.Now()
	a := cpuMark{at: t0, user: time.Second, sys: time.Second}
	b := cpuMark{at: t0.Add(2 * time.Second), user: 2 * time.Second, sys: 1500 * time.Millisecond}
	c := cpuBetween(a, b, 2)
	// 1.5 s of CPU over 2 s of a 2-CPU host is 37.5% of the host.
	if c.User != 1 || c.Sys != 0.5 || c.Util != 37.5 || c.Cores != 2 {
		t.Errorf("cpuBetween = %+v", c)
	}
}

func TestFinishStream(t *testing.T) {
	r := &Result{Params: Params{Test: Stream, MsgSize: 1452}, Bytes: 1024 * 1000,
		Local: CPU{User: 0.5, Sys: 0.5}, Remote: CPU{User: 0.25}}
	r.finish(time.Second)
	if !near(r.Throughput, 8.192, 1e-9) {
		t.Errorf("throughput %v", r.Throughput)
	}
	// 1 s of CPU for 1000 KB is 1000 us/KB.
	if !near(r.Local.Demand, 1000, 1e-9) || !near(r.Remote.Demand, 250, 1e-9) {
		t.Errorf("demand %v %v", r.Local.Demand, r.Remote.Demand)
	}
	if r.Primary() != r.Throughput || r.PrimaryUnit() != "10^6bits/s" {
		t.Error("primary of a STREAM test is its throughput")
	}
}

func TestFinishRR(t *testing.T) {
	r := &Result{Params: Params{Test: RR, ReqSize: 1, RespSize: 1}, Transactions: 30000, Bytes: 60000,
		Local: CPU{User: 0.3}}
	r.finish(2 * time.Second)
	if r.TransRate != 15000 || r.Primary() != 15000 || r.PrimaryUnit() != "Trans/s" {
		t.Errorf("rate %v", r.TransRate)
	}
	if !near(r.Local.Demand, 10, 1e-9) { // 0.3 s / 30000 transactions
		t.Errorf("demand %v us/Tr", r.Local.Demand)
	}
}

func TestNormalize(t *testing.T) {
	p := Params{Test: "sctp_stream_many"}
	if err := p.Normalize(); err != nil {
		t.Fatal(err)
	}
	if p.Test != StreamMany || p.Config.Streams != 65535 || p.MsgSize != 1452 || p.Stack != "usctp" ||
		p.Duration != 10*time.Second || p.Config.Transport != "udp" || p.Assocs != 1 {
		t.Errorf("defaults: %+v", p)
	}
	q := Params{Test: RR, ReqSize: 64, RespSize: 1024}
	q.Normalize()
	if q.Config.Streams != 1 || q.Config.MaxMsg != 1024 {
		t.Errorf("RR defaults: %+v", q)
	}
	for _, bad := range []Params{{Test: "TCP_STREAM"}, {Config: Config{Streams: 70000}},
		{Config: Config{Streams: 2, Weights: []uint16{1, 2, 3}}},
		{MsgSize: MaxMessageSize + 1}, {Test: RR, RespSize: 1 << 40}, {Config: Config{MaxMsg: 1 << 62}},
		{Assocs: MaxAssocs + 1}, {Config: Config{Shards: MaxShards + 1}}, {Config: Config{Shards: -1}}, {Config: Config{SndBuf: -1}}, {Config: Config{RcvBuf: MaxBuffer + 1}},
		{Interim: time.Nanosecond}, {Interim: -time.Second}} {
		if err := bad.Normalize(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestHistogram(t *testing.T) {
	var h Histogram
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.9, 900 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {1, time.Millisecond}} {
		got := h.Quantile(c.q)
		if !near(float64(got), float64(c.want), 1.0/histSub) {
			t.Errorf("q%v = %v, want %v within 3%%", c.q, got, c.want)
		}
	}
	l := h.Latency()
	if l.Max != 1000 || !near(l.Mean, 500.5, 1e-9) {
		t.Errorf("latency %+v", l)
	}
	var h2 Histogram
	h2.Record(5 * time.Second)
	h.Merge(&h2)
	if h.Count() != 1001 || h.Quantile(1) != 5*time.Second {
		t.Errorf("merge: count %d max %v", h.Count(), h.Quantile(1))
	}
	var empty Histogram
	if empty.Quantile(0.5) != 0 || empty.Latency() != (Latency{}) {
		t.Error("empty histogram")
	}
}

func TestHistIndexMonotone(t *testing.T) {
	prev := -1
	for v := uint64(0); v < 1<<20; v += 7 {
		i := histIndex(v)
		if i < prev || histLow(i) > v || (i+1 < histBuckets && histLow(i+1) <= v) {
			t.Fatalf("v=%d index %d low %d next %d", v, i, histLow(i), histLow(i+1))
		}
		prev = i
	}
	if histIndex(math.MaxUint64) != histBuckets-1 {
		t.Errorf("top index %d, want %d", histIndex(math.MaxUint64), histBuckets-1)
	}
}

func TestHistogramNoAllocs(t *testing.T) {
	var h Histogram
	if n := testing.AllocsPerRun(100, func() { h.Record(time.Millisecond) }); n != 0 {
		t.Errorf("Record allocates %v", n)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestWriteTableStream(t *testing.T) {
	r := &Result{Params: Params{Test: Stream, MsgSize: 1452, Config: Config{SndBuf: 65536}},
		Elapsed: 10, Throughput: 1234.5, Local: CPU{Util: 45.1, Cores: 2}, PerStream: []uint64{300, 100}}
	var b bytes.Buffer
	WriteTable(&b, r)
	out := b.String()
	for _, want := range []string{"10^6bits/s", "us/KB", "dflt   65536   1452     10.00       1234.50  45.10",
		"stream     0            300 bytes  75.00%", "stream     1            100 bytes  25.00%", "(2 of 2 streams"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteTableRR(t *testing.T) {
	r := &Result{Params: Params{Test: RR, ReqSize: 1, RespSize: 1}, Elapsed: 10, TransRate: 25000,
		Latency: Latency{P50: 38.1, P99: 80.25}}
	var b bytes.Buffer
	WriteTable(&b, r)
	out := b.String()
	for _, want := range []string{"Trans.", "per sec", "25000.00", "p50 38.1", "p99 80.2", "us/Tr"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestWritePerStreamSummary(t *testing.T) {
	per := make([]uint64, 65535)
	for i := range 10 {
		per[i] = uint64(i + 1)
	}
	var b bytes.Buffer
	WritePerStream(&b, per)
	if !strings.Contains(b.String(), "10 of 65535") || !strings.Contains(b.String(), "max 10") || strings.Count(b.String(), "\n") > 3 {
		t.Errorf("summary:\n%s", b.String())
	}
}

func TestWriteComparison(t *testing.T) {
	c := &Comparison{Params: Params{Test: Stream}, Rounds: 2, Stacks: []string{"usctp", "pion"},
		Runs:   map[string][]float64{"usctp": {900, 1100}, "pion": {400, 600}},
		Median: map[string]float64{"usctp": 1000, "pion": 500}, Unit: "10^6bits/s"}
	var b bytes.Buffer
	WriteComparison(&b, c)
	if !strings.Contains(b.String(), "usctp/pion = 2.00") || !strings.Contains(b.String(), " 900.00 1100.00") {
		t.Errorf("comparison:\n%s", b.String())
	}
}

func TestWriteInterim(t *testing.T) {
	var b bytes.Buffer
	p := Params{Test: Stream}
	WriteInterim(&b, &p, Interim{At: 2, Span: 1, Rate: 812.5})
	if got := b.String(); got != "Interim result:     812.50 10^6bits/s over 1.000 seconds ending at 2.000\n" {
		t.Errorf("interim %q", got)
	}
}

func TestKernelStackWithoutSCTP(t *testing.T) {
	if kernelHasSCTP() == nil {
		t.Skip("this kernel has SCTP")
	}
	st, _ := Lookup("kernel")
	_, err := st.Dial(t.Context(), "127.0.0.1:1", &Config{Transport: "ip", Streams: 1})
	if err == nil || !strings.Contains(err.Error(), "kernel has no SCTP") {
		t.Errorf("Dial: %v, want kernel has no SCTP", err)
	}
}
