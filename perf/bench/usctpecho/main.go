// Command usctpecho is the usctp side of the lossy-path benchmark
// (perf/bench/lossy.sh): a server that echoes every message it reads, and
// a client that writes a number of bytes in fixed-size messages, reads the
// echo back and prints the elapsed time. It uses only the public sctp API,
// over UDP encapsulation, so the lossy relay (cmd/lossyrelay) can sit
// between the two.
//
//	usctpecho -s -udp 9901 -port 5001
//	usctpecho -c -udp 9902 -remote-udp 9903 -port 5001 -bytes 16777216 -size 1400
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/usctp/usctp/perf"
	"github.com/usctp/usctp/sctp"
)

func main() {
	server := flag.Bool("s", false, "serve: echo every message")
	client := flag.Bool("c", false, "client: send, read the echo, print the time")
	udp := flag.Int("udp", 0, "local UDP encapsulation port (0: 9899)")
	remoteUDP := flag.Int("remote-udp", 9899, "peer's UDP encapsulation port (the relay's)")
	port := flag.Int("port", 5001, "SCTP port of the server")
	total := flag.Int("bytes", 16<<20, "bytes to send (client)")
	size := flag.Int("size", 1400, "message size (client)")
	verbose := flag.Bool("v", false, "print the association's counters at the end")
	cubic := flag.Bool("cubic", false, "CUBIC congestion control")
	rfc := flag.Bool("rfc9260", false, "RFC 9260 loss recovery instead of RACK-style")
	flag.Parse()
	if *udp < 0 || *udp > 65535 || *remoteUDP < 0 || *remoteUDP > 65535 {
		log.Fatal("-udp and -remote-udp must be ports")
	}
	cfg := &sctp.Config{UDPPort: uint16(*udp), RemoteUDPPort: uint16(*remoteUDP)}
	if *cubic {
		cfg.Paths.CongestionControl = sctp.CongestionCubic
	}
	if *rfc {
		cfg.Paths.Recovery = sctp.RecoveryRFC9260
	}
	switch {
	case *server:
		serve(cfg, *port, *verbose)
	case *client:
		run(cfg, *port, *total, *size, *verbose)
	default:
		flag.Usage()
		os.Exit(2)
	}
}

func serve(cfg *sctp.Config, port int, verbose bool) {
	l, err := sctp.Listen(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	for {
		as, err := l.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			defer as.Close()
			buf := make([]byte, 64<<10)
			for {
				n, info, err := as.ReadMsg(buf)
				if err != nil {
					if verbose {
						printStats("server", as.Stats())
					}
					return
				}
				if _, err := as.WriteMsg(buf[:n], sctp.SendInfo{Stream: info.Stream, PPID: info.PPID}); err != nil {
					return
				}
			}
		}()
	}
}

func run(cfg *sctp.Config, port, total, size int, verbose bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as, err := sctp.Dial(ctx, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cfg)
	if err != nil {
		log.Fatal(err)
	}
	start := time.Now()
	errc := make(chan error, 1)
	go func() {
		msg := make([]byte, size)
		for sent := 0; sent < total; sent += size {
			if _, err := as.WriteMsg(msg[:min(size, total-sent)], sctp.SendInfo{}); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	buf := make([]byte, 64<<10)
	for got := 0; got < total; {
		n, _, err := as.ReadMsg(buf)
		if err != nil {
			log.Fatalf("read after %d bytes: %v", got, err)
		}
		got += n
	}
	elapsed := time.Since(start)
	if err := <-errc; err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.3f\n", elapsed.Seconds())
	if verbose {
		printStats("client", as.Stats())
	}
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	as.Shutdown(sctx)
	as.Close()
}

func printStats(who string, st sctp.Stats) {
	fmt.Fprintf(os.Stderr, "%s: packets out %d in %d, retransmits %d (%s), srtt %v rto %v cwnd %d, PLPMTU %d (probes %d, acked %d, lost %d, up %d, down %d, black holes %d)\n",
		who, st.PacketsOut, st.PacketsIn, st.Retransmits, perf.LossLine(st.Counters), st.SRTT, st.RTO, st.Cwnd,
		st.PLPMTU, st.PMTUProbes, st.PMTUProbeAcks, st.PMTUProbesLost, st.PMTUIncreases, st.PMTUDecreases, st.PMTUBlackHoles)
}
