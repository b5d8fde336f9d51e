package perf

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteBanner writes netperf's one-line test banner.
func WriteBanner(w io.Writer, p *Params, host string) {
	transport := "UDP encapsulation (RFC 6951)"
	if p.Config.Transport == "ip" {
		transport = "IP protocol 132"
	}
	extra := ""
	if p.Config.Streams > 1 || p.Assocs > 1 {
		extra = fmt.Sprintf(", %d streams x %d assocs", p.Config.Streams, p.Assocs)
	}
	if p.Config.Sched != "" {
		extra += ", sched " + p.Config.Sched
	}
	if p.Config.Interleave {
		extra += ", I-DATA"
	}
	fmt.Fprintf(w, "%s TEST to %s : %s over %s%s\n", strings.ReplaceAll(p.Test, "_", " "), host, p.Stack, transport, extra)
}

// bufText shows a configured buffer size, or the stack's default.
func bufText(n int) string {
	if n <= 0 {
		return "dflt"
	}
	return fmt.Sprint(n)
}

// WriteTable writes r as netperf writes its result table, followed by the
// latency percentiles (RR) and, if r has them, the bytes per stream.
func WriteTable(w io.Writer, r *Result) {
	p := &r.Params
	if p.IsStream() {
		fmt.Fprintf(w, "Recv   Send    Send                          Utilization       Service Demand\n")
		fmt.Fprintf(w, "Socket Socket  Message  Elapsed              Send     Recv     Send    Recv\n")
		fmt.Fprintf(w, "Size   Size    Size     Time     Throughput  local    remote   local   remote\n")
		fmt.Fprintf(w, "bytes  bytes   bytes    secs.    10^6bits/s  %% S      %% S      us/KB   us/KB\n\n")
		fmt.Fprintf(w, "%-6s %-7s %-8d %-8.2f %10.2f  %-8.2f %-8.2f %-7.3f %-7.3f\n",
			bufText(p.Config.RcvBuf), bufText(p.Config.SndBuf), p.MsgSize, r.Elapsed, r.Throughput,
			r.Local.Util, r.Remote.Util, r.Local.Demand, r.Remote.Demand)
	} else {
		fmt.Fprintf(w, "Local /Remote\n")
		fmt.Fprintf(w, "Socket Size   Request Resp.  Elapsed Trans.    CPU    CPU    S.dem   S.dem\n")
		fmt.Fprintf(w, "Send   Recv   Size    Size   Time    Rate      local  remote local   remote\n")
		fmt.Fprintf(w, "bytes  bytes  bytes   bytes  secs.   per sec   %% S    %% S    us/Tr   us/Tr\n\n")
		fmt.Fprintf(w, "%-6s %-6s %-7d %-6d %-7.2f %-9.2f %-6.2f %-6.2f %-7.3f %-7.3f\n",
			bufText(p.Config.SndBuf), bufText(p.Config.RcvBuf), p.ReqSize, p.RespSize, r.Elapsed, r.TransRate,
			r.Local.Util, r.Remote.Util, r.Local.Demand, r.Remote.Demand)
		l := r.Latency
		fmt.Fprintf(w, "\nLatency (us): p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f\n",
			l.P50, l.P90, l.P99, l.P999, l.Max, l.Mean)
	}
	fmt.Fprintf(w, "CPU (s): local user %.2f sys %.2f, remote user %.2f sys %.2f, of %d CPUs\n",
		r.Local.User, r.Local.Sys, r.Remote.User, r.Remote.Sys, r.Local.Cores)
	if len(r.PerStream) > 0 {
		WritePerStream(w, r.PerStream)
		if r.LocalStats != "" {
			fmt.Fprintf(w, "\nLocal association:  %s\nRemote association: %s\n", r.LocalStats, r.RemoteStats)
		}
	}
}

// WritePerStream writes the bytes delivered per stream: every stream when
// there are few, a summary and the busiest streams otherwise.
func WritePerStream(w io.Writer, per []uint64) {
	var total uint64
	used := 0
	for _, b := range per {
		total += b
		if b > 0 {
			used++
		}
	}
	fmt.Fprintf(w, "\nBytes delivered per stream in the timed run (%d of %d streams carried data):\n", used, len(per))
	share := func(b uint64) float64 {
		if total == 0 {
			return 0
		}
		return float64(b) * 100 / float64(total)
	}
	if len(per) <= 32 {
		for sid, b := range per {
			fmt.Fprintf(w, "  stream %5d %14d bytes %6.2f%%\n", sid, b, share(b))
		}
		return
	}
	sorted := slices.Clone(per)
	slices.Sort(sorted)
	fmt.Fprintf(w, "  min %d  median %d  max %d bytes\n", sorted[0], sorted[len(sorted)/2], sorted[len(sorted)-1])
}

// WriteInterim writes one interim line in netperf's demo-mode style.
func WriteInterim(w io.Writer, p *Params, in Interim) {
	fmt.Fprintf(w, "Interim result: %10.2f %s over %.3f seconds ending at %.3f\n", in.Rate, primaryUnit(p), in.Span, in.At)
}
