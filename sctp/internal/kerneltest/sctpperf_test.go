package kerneltest

import (
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	perfRounds = flag.Int("perf.rounds", 1, "TestKernelSctpperfCompare: rounds of each stack")
	perfSecs   = flag.String("perf.l", "2", "TestKernelSctpperfCompare: seconds per run")
)

// perfResult is the part of sctpperf's -json result (perf.Result) these tests read.
type perfResult struct {
	Params struct {
		Test   string `json:"test"`
		Stack  string `json:"stack"`
		Assocs int    `json:"assocs"`
		Config struct {
			Transport string `json:"transport"`
			Streams   int    `json:"streams"`
		} `json:"config"`
	} `json:"params"`
	Bytes        uint64  `json:"bytes"`
	Messages     uint64  `json:"messages"`
	Transactions uint64  `json:"transactions"`
	Mbps         float64 `json:"throughput_mbps"`
	TPS          float64 `json:"transactions_per_s"`
	Latency      *struct {
		P50 float64 `json:"p50_us"`
	} `json:"latency"`
}

// perfComparison is the part of sctpperf -compare -json's result these tests read.
type perfComparison struct {
	Runs   map[string][]float64 `json:"runs"`
	Median map[string]float64   `json:"median"`
	Unit   string               `json:"unit"`
}

// sctpperf runs /sctpperf in the guest with args (both of its ends in the guest, on
// loopback) and decodes its -json output into v.
func sctpperf(t *testing.T, id string, v any, args ...string) {
	t.Helper()
	vm := kvm.Get(t)
	ctx := ctxFor(t, 3*time.Minute+time.Duration(*perfRounds)*20*time.Second)
	res, err := vm.Run(ctx, id, append([]string{"/sctpperf", "-json"}, args...)...)
	out := strings.Join(res.Stdout, "\n")
	if err != nil || res.Code != 0 {
		t.Fatalf("sctpperf %s: exit %d, %v; output:\n%s\n%s", strings.Join(args, " "), res.Code, err, out, strings.Join(res.Stderr, "\n"))
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("sctpperf %s: %v; output:\n%s", strings.Join(args, " "), err, out)
	}
}

// TestKernelSctpperf runs sctpperf's kernel backend (Linux 6.1's SCTP through
// github.com/ishidawataru/sctp, issue 9) in the guest: each of netperf's four tests over
// RFC 6951 UDP encapsulation (net.sctp.udp_port with SCTP_REMOTE_UDP_ENCAPS_PORT) and
// over IP, both ends in the guest. Every run must end well (the client checks that the
// server received every byte it sent) and move data.
func TestKernelSctpperf(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"stream-udp", []string{"-t", "SCTP_STREAM"}},
		{"stream-ip", []string{"-t", "SCTP_STREAM", "-transport", "ip"}},
		{"stream-many", []string{"-t", "SCTP_STREAM_MANY", "-assocs", "2"}},
		{"rr-udp", []string{"-t", "SCTP_RR"}},
		{"rr-ip", []string{"-t", "SCTP_RR", "-transport", "ip", "-r", "100,1000"}},
		{"rr-many", []string{"-t", "SCTP_RR_MANY", "-assocs", "4", "-streams", "100"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r perfResult
			sctpperf(t, "perf-"+c.name, &r, append([]string{"-stack", "kernel", "-l", "1"}, c.args...)...)
			rr := strings.HasPrefix(r.Params.Test, "SCTP_RR")
			switch {
			case r.Params.Stack != "kernel" || r.Params.Test != c.args[1]:
				t.Errorf("result for %s on %s, want %s on kernel", r.Params.Test, r.Params.Stack, c.args[1])
			case r.Messages == 0 || r.Bytes == 0:
				t.Errorf("%d messages, %d bytes: nothing moved", r.Messages, r.Bytes)
			case rr && (r.Transactions == 0 || r.TPS <= 0 || r.Latency == nil || r.Latency.P50 <= 0):
				t.Errorf("RR: %d transactions, %.0f/s, latency %+v", r.Transactions, r.TPS, r.Latency)
			case !rr && r.Mbps <= 0:
				t.Errorf("STREAM: %.1f Mbit/s", r.Mbps)
			}
			t.Logf("%s kernel over %s, %d assocs x %d streams: %.1f Mbit/s, %.0f tr/s",
				r.Params.Test, r.Params.Config.Transport, r.Params.Assocs, r.Params.Config.Streams, r.Mbps, r.TPS)
		})
	}
}

// TestKernelSctpperfCompare runs usctp, the guest kernel's SCTP and pion/sctp side by side
// with sctpperf -compare (all over UDP encapsulation, both ends in the guest, one round of
// each by default; -perf.rounds and -perf.l ask for more), and reports their medians and
// ratio. The guest is emulated (QEMU TCG, one virtual CPU): the figures are no benchmark
// of this machine, but the stacks run on the same emulated machine. The test checks that
// each ran the same test in one run.
func TestKernelSctpperfCompare(t *testing.T) {
	for _, test := range []string{"SCTP_STREAM", "SCTP_RR"} {
		t.Run(test, func(t *testing.T) {
			var c perfComparison
			sctpperf(t, "cmp-"+strings.ToLower(test), &c, "-t", test, "-compare", "usctp,kernel,pion",
				"-rounds", strconv.Itoa(*perfRounds), "-l", *perfSecs)
			for _, st := range []string{"usctp", "kernel", "pion"} {
				if len(c.Runs[st]) != *perfRounds || c.Median[st] <= 0 {
					t.Fatalf("runs %v medians %v: want %d positive runs of each stack", c.Runs, c.Median, *perfRounds)
				}
			}
			u, k, p := c.Median["usctp"], c.Median["kernel"], c.Median["pion"]
			t.Logf("%s in the guest, medians: usctp %.1f, kernel %.1f, pion %.1f %s; usctp/kernel %s, usctp/pion %s (runs %.1f, %.1f, %.1f)",
				test, u, k, p, c.Unit, ratio(u, k), ratio(u, p), c.Runs["usctp"], c.Runs["kernel"], c.Runs["pion"])
		})
	}
}

func ratio(a, b float64) string { return fmt.Sprintf("%.2fx", a/b) }
