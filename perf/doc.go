// Package perf runs netperf-style SCTP tests (SCTP_STREAM, SCTP_STREAM_MANY,
// SCTP_RR, SCTP_RR_MANY) over pluggable SCTP stacks.
//
// # Usage
//
// A server (Serve, the netserver side) listens for TCP control
// connections; a client (Run) sends it the test's Params, the server opens
// a data listener on the stack the client names and answers with its port,
// and the client opens the associations and drives the test:
//
//	go perf.Serve(ctx, ln) // ln: a net.Listener on the control port
//	r, err := perf.Run(ctx, "host:12865", perf.Params{Test: perf.RR, Stack: "usctp", Duration: 10 * time.Second}, perf.RunOptions{})
//	perf.WriteTable(os.Stdout, r)
//
// SCTP_STREAM throughput is measured where the data arrives, from the first
// message to the last (the server waits for what the client had queued
// when the run ended); SCTP_RR counts transactions and their latency on the
// client. Each side reports its process's CPU time (getrusage), so CPU
// figures are per process: run the two sides in separate processes
// (cmd/sctpperf does) for meaningful ones.
//
// Compare runs one test on several stacks in turn for a number of rounds
// and keeps the medians. Memory opens many associations in this process
// and measures the heap they hold, idle and after traffic, and the
// allocations per message.
//
// # Stacks
//
// A Stack opens associations that carry messages tagged with a stream id
// and a PPID. Registered stacks: "usctp" (package sctp, through its public
// API), "pion" and "pion-tuned" (github.com/pion/sctp over UDP sockets,
// with its defaults and with a 1452-byte MTU and 4 MiB buffers) and
// "kernel" (Linux SCTP through github.com/ishidawataru/sctp; it fails with
// ErrNoKernelSCTP where the kernel has none). Register adds more.
//
// # Limitations
//
//   - pion has no send-buffer limit of its own; perf caps its queue at the
//     send buffer (1 MiB by default) with BufferedAmount. pion reads each
//     stream with its own blocking call, so with more than one stream perf
//     runs a reader goroutine per stream in use.
//   - SCTP_RR_MANY keeps one transaction outstanding per association and
//     cycles through the streams.
//   - The kernel backend takes the peer to encapsulate on its own
//     net.sctp.udp_port over -transport udp (Linux 5.11 and later). With
//     -sched, STREAM tests run one writer per stream (up to 64), and
//     Linux's blocking writers contend for the socket, so kernel figures
//     with several writers are far below one writer's.
//   - With a shared send buffer, writers are admitted in turn, so bytes per
//     stream show a scheduler's shares only while the backlog lasts: use a
//     send buffer larger than what the run delivers (Params.PerStream
//     counts up to the end of the timed run).
package perf
