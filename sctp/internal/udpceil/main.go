// Command udpceil measures the UDP socket path usctp rides on, alone: one
// process sends datagrams of a path's size in GSO batches (netio's
// WriteBatch), the other reads them with GRO (ReadBatchView), and neither
// does any protocol work. With -work each side also does what any SCTP
// over UDP must do per packet: the sender copies the user data into the
// packet and computes its CRC32c, the receiver computes the CRC32c and
// copies the user data out. The receiver's rate is the ceiling of a
// userspace stack on that path; perf/bench/udpceil.sh runs it beside
// sctpperf's usctp and Linux TCP (docs/PERFORMANCE.md).
//
//	udpceil -mode recv -addr 127.0.0.1:9999 [-work]
//	udpceil -mode send -addr 127.0.0.1:9999 -size 65507 -batch 8 -t 4 [-work]
//
// The receiver prints its rate when nothing came for a second after the
// first datagram; the sender prints its own when it stops after -t.
package main

import (
	"flag"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/netio"
)

// headers is where the user data of a one-chunk SCTP packet starts in
// -work: after the common header (12 bytes) and the DATA chunk header (16).
const headers = 28

// sink keeps the CRC32c results alive.
var sink atomic.Uint32

func main() {
	mode := flag.String("mode", "", "recv or send")
	addr := flag.String("addr", "127.0.0.1:9999", "the receiver's address")
	from := flag.String("from", "", "the sender's local address (default: any)")
	size := flag.Int("size", 1472, "datagram size: the path MTU less the IP and UDP headers")
	batch := flag.Int("batch", 44, "datagrams per WriteBatch (one GSO send when they fit 64 KiB)")
	secs := flag.Duration("t", 4*time.Second, "how long the sender sends")
	work := flag.Bool("work", false, "copy and CRC32c every datagram, as SCTP over UDP must")
	senders := flag.Int("senders", 1, "sending goroutines, each with its own socket")
	flag.Parse()
	to, err := netip.ParseAddrPort(*addr)
	if err != nil {
		fail(err)
	}
	switch *mode {
	case "recv":
		recv(to, *work)
	case "send":
		local := netip.AddrPortFrom(to.Addr().Unmap(), 0)
		if to.Addr().Is4() {
			local = netip.AddrPortFrom(netip.IPv4Unspecified(), 0)
		}
		if *from != "" {
			if local, err = netip.ParseAddrPort(*from); err != nil {
				fail(err)
			}
		}
		var wg sync.WaitGroup
		for range *senders {
			wg.Go(func() { send(local, to, *size, *batch, *secs, *work) })
		}
		wg.Wait()
	default:
		fail(fmt.Errorf("-mode recv or send"))
	}
}

func recv(at netip.AddrPort, work bool) {
	c, err := netio.ListenUDP(netio.UDPConfig{Addr: at, GRO: true})
	if err != nil {
		fail(err)
	}
	pkts := make([]netio.Packet, 64)
	for i := range pkts {
		pkts[i].Buf = make([]byte, 1<<16)
	}
	user := make([]byte, 1<<18)
	var bytes, off, reads int
	var crcs uint32
	var first, last time.Time
	var cpu0 float64
	for {
		c.SetReadDeadline(time.Now().Add(time.Second))
		if first.IsZero() {
			c.SetReadDeadline(time.Now().Add(time.Minute))
		}
		n, err := c.ReadBatchView(pkts)
		if err != nil {
			break
		}
		if first.IsZero() {
			first, cpu0 = time.Now(), cpuTime()
		}
		last = time.Now()
		reads++
		for _, p := range pkts[:n] {
			d := p.Data()
			if work && len(d) > headers {
				crcs += chunk.Checksum(d)
				if off+len(d) > len(user) {
					off = 0
				}
				off += copy(user[off:], d[headers:])
			}
			bytes += len(d)
		}
	}
	sink.Add(crcs)
	report("recv", bytes, last.Sub(first), cpuTime()-cpu0)
	if reads > 0 {
		fmt.Printf("recv %d bytes per read\n", bytes/reads)
	}
}

func send(local, to netip.AddrPort, size, batch int, secs time.Duration, work bool) {
	c, err := netio.ListenUDP(netio.UDPConfig{Addr: local})
	if err != nil {
		fail(err)
	}
	pkts := make([]netio.Packet, batch)
	for i := range pkts {
		pkts[i] = netio.Packet{Buf: make([]byte, size), N: size, Addr: to}
	}
	msg := make([]byte, 1<<18)
	bytes, off := 0, 0
	var crcs uint32
	start, cpu0 := time.Now(), cpuTime()
	for time.Since(start) < secs {
		if work {
			for i := range pkts {
				b := pkts[i].Buf
				if off+len(b)-headers > len(msg) {
					off = 0
				}
				off += copy(b[headers:], msg[off:])
				crcs += chunk.Checksum(b)
			}
		}
		n, err := c.WriteBatch(pkts)
		if err != nil {
			continue // ENOBUFS and the like: try again
		}
		bytes += n * size
	}
	sink.Add(crcs)
	report("send", bytes, time.Since(start), cpuTime()-cpu0)
}

// report prints a side's rate and the CPU it used, in cores.
func report(side string, bytes int, d time.Duration, cpu float64) {
	s := d.Seconds()
	if s <= 0 {
		fail(fmt.Errorf("%s: nothing measured", side))
	}
	fmt.Printf("%s %.0f Mbit/s %.2f cores\n", side, float64(bytes)*8/s/1e6, cpu/s)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "udpceil:", err)
	os.Exit(1)
}
