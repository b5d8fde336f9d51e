package kernelvm

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Pcap writes SCTP packets to a pcap file (LINKTYPE_RAW: each record an IPv4 packet),
// so that sctpdump, tshark or Wireshark read an interop test's traffic: packets of
// transport B as SCTP over IPv4, packets of transport A inside IPv4 and UDP (Wireshark
// decodes port 9899 as SCTP by itself, other ports with "Decode As"; TsharkProblems
// decodes them all). It is safe for concurrent use.
type Pcap struct {
	// Path is the file's path.
	Path string

	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	err error
}

const linktypeRaw = 101 // LINKTYPE_RAW: raw IPv4 or IPv6, no link-layer header

// CreatePcap creates (or truncates) a pcap file.
func CreatePcap(path string) (*Pcap, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	p := &Pcap{Path: path, f: f, w: bufio.NewWriter(f)}
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:], 0xa1b23c4d) // nanosecond timestamps
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], 65535) // snaplen
	binary.LittleEndian.PutUint32(h[20:], linktypeRaw)
	if _, err := p.w.Write(h[:]); err != nil {
		f.Close()
		return nil, err
	}
	return p, nil
}

// PcapFor creates the pcap of a test in $USCTP_PCAP_DIR, or in usctp-pcap-PID under
// the temporary directory (one directory per test process, so that test runs at the
// same time do not write each other's files), named after the test; the file outlives
// the test so that a failure can name it, and the test closes it when it ends.
func PcapFor(t testing.TB) *Pcap {
	t.Helper()
	dir := os.Getenv("USCTP_PCAP_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("usctp-pcap-%d", os.Getpid()))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".pcap"
	p, err := CreatePcap(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Close()
		if t.Failed() {
			t.Logf("pcap: %s", p.Path)
		}
	})
	return p
}

// WriteSCTP records one SCTP packet sent at time at from src to dst (IPv4). With udp
// set, src and dst are the UDP endpoints of the encapsulation and the record carries a
// UDP header; otherwise only their addresses are used.
func (p *Pcap) WriteSCTP(at time.Time, src, dst netip.AddrPort, udp bool, pkt []byte) error {
	src = netip.AddrPortFrom(src.Addr().Unmap(), src.Port()) // net.UDPAddr's 16-byte form
	dst = netip.AddrPortFrom(dst.Addr().Unmap(), dst.Port())
	if !src.Addr().Is4() || !dst.Addr().Is4() {
		return errors.New("kernelvm: pcap: IPv4 addresses only")
	}
	hl := 20
	if udp {
		hl += 8
	}
	rec := make([]byte, 16+hl, 16+hl+len(pkt))
	ip := rec[16:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(hl+len(pkt)))
	ip[8] = 64
	ip[9] = 132
	if udp {
		ip[9] = 17
		binary.BigEndian.PutUint16(ip[20:], src.Port())
		binary.BigEndian.PutUint16(ip[22:], dst.Port())
		binary.BigEndian.PutUint16(ip[24:], uint16(8+len(pkt))) // checksum 0: none (IPv4)
	}
	s, d := src.Addr().As4(), dst.Addr().As4()
	copy(ip[12:], s[:])
	copy(ip[16:], d[:])
	binary.BigEndian.PutUint16(ip[10:], ipChecksum(ip[:20]))
	rec = append(rec, pkt...)
	n := len(rec) - 16
	binary.LittleEndian.PutUint32(rec[0:], uint32(at.Unix()))
	binary.LittleEndian.PutUint32(rec[4:], uint32(at.Nanosecond()))
	binary.LittleEndian.PutUint32(rec[8:], uint32(n))
	binary.LittleEndian.PutUint32(rec[12:], uint32(n))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		_, p.err = p.w.Write(rec)
	}
	return p.err
}

func ipChecksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		sum += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// Close flushes and closes the file.
func (p *Pcap) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		return p.err
	}
	if err := p.w.Flush(); p.err == nil {
		p.err = err
	}
	if err := p.f.Close(); p.err == nil {
		p.err = err
	}
	p.f = nil
	return p.err
}

// CheckPcap fails the test if tshark, where it is installed, finds a malformed packet or
// a bad CRC32c checksum in the pcap at path.
func CheckPcap(t testing.TB, path string) {
	t.Helper()
	bad, err := TsharkProblems(path)
	if err != nil {
		t.Errorf("tshark on %s: %v", path, err)
	}
	if bad != "" {
		t.Errorf("tshark finds malformed packets or bad checksums in %s:\n%s", path, bad)
	}
}

// TsharkProblems returns tshark's one-line summaries of the packets in the pcap at path
// that are malformed, have a bad CRC32c or carry an expert error; "" when there are none
// or tshark is not installed.
func TsharkProblems(path string) (string, error) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		return "", nil
	}
	// Every record is SCTP, so every UDP port decodes as SCTP (Wireshark only knows
	// 9899 by itself, and transport A's host side uses ports chosen at run time), and
	// the payloads as plain data: an SCTP port the kernel picks may be one Wireshark
	// gives a protocol of its own (36444, M3AP), whose dissector calls the test's
	// payload malformed.
	cmd := exec.Command(tshark, "-n", "-r", path, "-o", "sctp.checksum:CRC-32C", "-d", "udp.port==1-65535,sctp",
		"-d", "sctp.port==1-65535,data",
		"-Y", `_ws.malformed || sctp.checksum.status == "Bad" || _ws.expert.severity == "Error"`)
	cmd.Env = append(os.Environ(), "HOME="+os.TempDir()) // tshark wants a profile directory
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}
