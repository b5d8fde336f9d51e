package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"github.com/usctp/usctp/sctp/chunk"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config holds the command-line options.
type config struct {
	udp          udpRule
	stats        bool
	zeroChecksum bool
	noChecksum   bool
}

// run is the whole command: it parses args, decodes the file, writes the
// lines to stdout and diagnostics to stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sctpdump", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	ports := "9899"
	fs.StringVar(&ports, "udp-port", ports, "UDP `ports` of SCTP over UDP (RFC 6951), comma-separated; 0 for none")
	fs.BoolVar(&cfg.udp.detect, "udp-detect", true, "also decode UDP datagrams on other ports whose payload is an SCTP packet with a valid checksum")
	fs.BoolVar(&cfg.stats, "stats", false, "print a count per chunk type at the end")
	fs.BoolVar(&cfg.zeroChecksum, "zero-checksum", false, "accept a zero checksum field (RFC 9653)")
	fs.BoolVar(&cfg.noChecksum, "no-checksum", false, "do not verify checksums")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sctpdump [flags] FILE")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	if cfg.udp.ports, err = parsePorts(ports); err != nil {
		fmt.Fprintln(stderr, "sctpdump: -udp-port:", err)
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "sctpdump:", err)
		return 2
	}
	defer f.Close()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	d := dumper{cfg: cfg, out: out}
	if err := d.file(f); err != nil {
		out.Flush()
		fmt.Fprintf(stderr, "sctpdump: %s: %v\n", fs.Arg(0), err)
		return 2
	}
	if cfg.stats {
		d.printStats()
	}
	if d.malformed > 0 {
		return 1
	}
	return 0
}

// packetSource is what pcapgo's two readers have in common.
type packetSource interface {
	ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
}

// dumper decodes one capture and counts.
type dumper struct {
	cfg       config
	out       *bufio.Writer
	line      []byte
	packets   int
	sctp      int
	chunks    int
	malformed int
	skipped   int
	detected  int // SCTP found by its checksum in UDP on another port
	perType   [256]int
}

// file decodes a pcap or pcapng file.
func (d *dumper) file(r io.Reader) error {
	br := bufio.NewReader(r)
	magic, err := br.Peek(4)
	if err != nil {
		return fmt.Errorf("not a capture file: %w", err)
	}
	var src packetSource
	var linkOf func(gopacket.CaptureInfo) layers.LinkType
	if string(magic) == "\x0a\x0d\x0d\x0a" {
		ng, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return err
		}
		src = ng
		linkOf = func(ci gopacket.CaptureInfo) layers.LinkType {
			if intf, err := ng.Interface(ci.InterfaceIndex); err == nil {
				return intf.LinkType
			}
			return ng.LinkType()
		}
	} else {
		pr, err := pcapgo.NewReader(br)
		if err != nil {
			return err
		}
		src = pr
		lt := pr.LinkType()
		linkOf = func(gopacket.CaptureInfo) layers.LinkType { return lt }
	}
	for {
		data, ci, err := src.ReadPacketData()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("packet %d: %w", d.packets+1, err)
		}
		d.packets++
		payload, kind := sctpPayload(data, linkOf(ci), d.cfg.udp)
		if kind == notSCTP {
			d.skipped++
			continue
		}
		if kind == udpSeenSCTP {
			d.detected++
		}
		d.sctp++
		if ci.CaptureLength < ci.Length {
			d.bad(nil, "capture truncated to "+strconv.Itoa(ci.CaptureLength)+" of "+strconv.Itoa(ci.Length)+" bytes")
			continue
		}
		d.packet(payload)
	}
}

// packet decodes one SCTP packet.
func (d *dumper) packet(pkt []byte) {
	p, err := chunk.ParsePacket(pkt)
	if err != nil {
		d.bad(nil, reason(err))
		return
	}
	if !d.cfg.noChecksum {
		if _, err := chunk.VerifyChecksum(pkt, d.cfg.zeroChecksum); err != nil {
			d.bad(&p.Header, reason(err))
			return
		}
	}
	it := p.Walk()
	for c, ok := it.Next(); ok; c, ok = it.Next() {
		d.chunks++
		d.perType[c.Type]++
		d.start()
		d.line = append(d.line, c.Type.String()...)
		d.vtag(&p.Header)
		text, err := chunk.AppendText(d.line[len(d.line):], c)
		d.line = append(d.line, text[len(c.Type.String()):]...)
		if err != nil {
			d.malformed++
			d.line = append(d.line, " malformed="...)
			d.line = append(d.line, reason(err)...)
		}
		d.end()
	}
	if err := it.Err(); err != nil {
		d.bad(&p.Header, reason(err))
	}
}

func (d *dumper) start() {
	d.line = strconv.AppendInt(d.line[:0], int64(d.packets), 10)
	d.line = append(d.line, ' ')
}

func (d *dumper) vtag(h *chunk.Header) {
	d.line = append(d.line, " vtag=0x"...)
	d.line = strconv.AppendUint(d.line, uint64(h.Tag), 16)
}

func (d *dumper) end() {
	d.line = append(d.line, '\n')
	d.out.Write(d.line)
}

// bad prints a MALFORMED line for the current packet.
func (d *dumper) bad(h *chunk.Header, why string) {
	d.malformed++
	d.start()
	d.line = append(d.line, "MALFORMED"...)
	if h != nil {
		d.vtag(h)
	}
	d.line = append(d.line, " malformed="...)
	d.line = append(d.line, why...)
	d.end()
}

// reason is err's text without the package prefix and without newlines.
func reason(err error) string {
	s := strings.TrimPrefix(err.Error(), "sctp/chunk: ")
	var e *chunk.Error
	if !errors.As(err, &e) {
		s = "sctp: " + s
	}
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
}

func (d *dumper) printStats() {
	fmt.Fprintf(d.out, "stats packets=%d sctp=%d chunks=%d malformed=%d skipped=%d udp_detected=%d\n",
		d.packets, d.sctp, d.chunks, d.malformed, d.skipped, d.detected)
	for t, n := range d.perType {
		if n > 0 {
			fmt.Fprintf(d.out, "stats chunk=%s count=%d\n", chunk.Type(t), n)
		}
	}
}

// parsePorts parses -udp-port: comma-separated ports; 0 alone means none.
func parsePorts(s string) ([]int, error) {
	var ports []int
	for f := range strings.SplitSeq(s, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || p < 0 || p > 65535 {
			return nil, fmt.Errorf("%q is not a port", f)
		}
		if p != 0 {
			ports = append(ports, p)
		}
	}
	return ports, nil
}
