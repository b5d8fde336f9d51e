package kerneltest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// kvm is the package's main guest (kernel 6.1, the distribution's), with transport B.
// Every test opens the kpeer listeners it needs itself (port=0: the kernel picks), so the
// tests do not depend on each other's leftovers.
// It also carries sctpperf, for TestKernelSctpperf.
var kvm = &guestVM{cfg: kernelvm.Config{Tap: os.Geteuid() == 0, Programs: []string{"./cmd/sctpperf"}, MemoryMB: 512}}

// kvm612 is the Debian 6.12 cloud kernel, the first with the fc and wfq stream
// schedulers; only TestKernelSchedulers612 uses it.
var kvm612 = &guestVM{cfg: kernelvm.Config{Kernel: "6.12"}}

func TestMain(m *testing.M) {
	flag.Parse()
	// Boot the guests the selected tests need in the background, one after the other
	// (two TCG boots at once slow each other down): 6.1 now, so that it overlaps the
	// build of cmd/sctpdump, and 6.12 once 6.1 is up, so that it overlaps the tests
	// that run before TestKernelSchedulers612.
	if selected("TestKernelMessages") {
		kvm.start(nil)
	}
	if selected("TestKernelSchedulers612") {
		kvm612.start(kvm)
	}
	if selected("TestKernelMultihom") && !selected("TestKernelMessages") {
		kvmMH.start(nil)
	}
	go buildSctpdump()
	code := m.Run()
	kvm.Close()
	kvm612.Close()
	kvmMH.Close()
	os.Exit(code)
}

// selected reports whether -test.run selects the top-level test name (approximately:
// the pattern's first element is matched).
func selected(name string) bool {
	f := flag.Lookup("test.run")
	if f == nil || f.Value.String() == "" {
		return true
	}
	pat, _, _ := strings.Cut(f.Value.String(), "/")
	ok, err := regexp.MatchString(pat, name)
	return ok || err != nil
}

// guestVM is a VM shared by the package's tests, booted in the background by TestMain
// or by the first test that asks for it, and closed by TestMain. A guest whose network
// a failed test found dead (markDead) is replaced by a new one at the next Get.
type guestVM struct {
	cfg      kernelvm.Config
	once     sync.Once
	cancel   context.CancelFunc
	guestErr bool // no guest prepared: skip outside CI
	took     time.Duration
	logOnce  sync.Once

	mu   sync.Mutex
	done chan struct{} // closed when the first boot ended; set once, under mu
	vm   *kernelvm.VM
	err  error
	dead *kernelvm.VM // vm, when markDead found its network dead
}

// doneChan returns the channel closed at the end of the first boot, nil before start.
func (g *guestVM) doneChan() chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.done
}

// config is the configuration of a boot.
func (g *guestVM) config() kernelvm.Config {
	cfg := g.cfg
	if os.Getenv("USCTP_KVM_VERBOSE") != "" {
		cfg.Logf = func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	}
	return cfg
}

// start boots the VM in the background, after the boot of after (if not nil) ended.
func (g *guestVM) start(after *guestVM) {
	g.once.Do(func() {
		done := make(chan struct{})
		g.mu.Lock()
		g.done = done
		g.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		g.cancel = cancel
		go func() {
			defer close(done)
			if after != nil {
				if d := after.doneChan(); d != nil {
					select {
					case <-d:
					case <-ctx.Done():
					}
				}
			}
			begin := time.Now()
			cfg := g.config()
			guest, err := kernelvm.FindGuest(ctx, cfg.Kernel, nil)
			if err != nil {
				g.mu.Lock()
				g.err, g.guestErr = err, true
				g.mu.Unlock()
				return
			}
			g.cfg.Guest = guest
			cfg.Guest = guest
			vm, err := kernelvm.Start(ctx, cfg)
			g.mu.Lock()
			g.vm, g.err = vm, err
			g.mu.Unlock()
			g.took = time.Since(begin)
		}()
	})
}

// Get returns the VM, waiting for its boot; a test that cannot have it fails in CI and
// skips elsewhere (kernelvm.Unavailable). A VM whose network died is replaced first.
func (g *guestVM) Get(t testing.TB) *kernelvm.VM {
	t.Helper()
	g.start(nil)
	<-g.doneChan()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.guestErr {
		kernelvm.Unavailable(t, g.err)
	}
	if g.err != nil {
		t.Fatal(g.err)
	}
	g.logOnce.Do(func() {
		t.Logf("guest %s: ready %v after its start (kpeer and initramfs %v, QEMU to kpeer %v)", g.vm.Guest().Release,
			g.took.Round(time.Millisecond), g.vm.PrepTime.Round(time.Millisecond), g.vm.BootTime.Round(time.Millisecond))
	})
	if g.dead != nil && g.dead == g.vm {
		g.vm.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		begin := time.Now()
		vm, err := kernelvm.Start(ctx, g.config())
		if err != nil {
			g.err = err
			t.Fatalf("booting a guest in place of the one whose network died: %v", err)
		}
		g.vm, g.dead = vm, nil
		t.Logf("guest %s: booted in place of the one whose network died, in %v", vm.Guest().Release, time.Since(begin).Round(time.Millisecond))
	}
	return g.vm
}

// markDead records that vm, this guestVM's VM, carries no packets on its first
// NIC: the next Get boots a new guest, so that one QEMU whose network died fails one
// test, not every test after it.
func (g *guestVM) markDead(vm *kernelvm.VM) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.vm == vm {
		g.dead = vm
	}
}

// Close stops a boot in progress and kills the VM.
func (g *guestVM) Close() {
	d := g.doneChan()
	if d == nil {
		return
	}
	g.cancel()
	<-d
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.vm != nil {
		g.vm.Close()
	}
}

// Transports and roles of the scenarios.
const (
	udp = "udp" // transport A: SCTP over UDP through QEMU's port forward
	ip  = "ip"  // transport B: SCTP over IP on the tap device (needs root)

	client = "client" // usctp dials the kernel
	server = "server" // the kernel dials usctp
)

var (
	transports = []string{udp, ip}
	roles      = []string{client, server}
)

// ids numbers kpeer listener and connection ids and usctp's listening ports, unique in
// the test binary.
var ids atomic.Int32

// pair is one association between usctp and kpeer.
type pair struct {
	t     *testing.T
	g     *guestVM // the guest vm belongs to, replaced when its network dies
	vm    *kernelvm.VM
	ctx   context.Context
	tr    string
	role  string
	id    string // kpeer's id of the connection (the listener's or the dialer's)
	ep    *sctp.Endpoint
	as    *sctp.Association
	pcap  string
	kline kernelvm.Line      // kpeer's ACCEPT or CONNECTED line
	parts map[partKey][]byte // readMsg: messages read in part so far
}

// setup is what a scenario asks of an association.
type setup struct {
	tr, role string
	kopts    string      // kpeer listen/dial options (mode=..., ostreams=..., sched=...)
	cfg      sctp.Config // usctp's configuration (transport fields are set here)
	timeout  time.Duration
	vm       *guestVM // the guest; nil means kvm (kernel 6.1)
}

// newPair starts an association between usctp and the guest kernel over s.tr with usctp in
// s.role. The endpoint is closed and its pcap checked when the test ends.
func newPair(t *testing.T, s setup) *pair {
	t.Helper()
	if s.vm == nil {
		s.vm = kvm
	}
	vm := s.vm.Get(t)
	if s.tr == ip && !vm.HasTap() {
		kernelvm.Unavailable(t, errors.New("transport B needs root for its network namespace"))
	}
	if s.timeout == 0 {
		s.timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	t.Cleanup(cancel)
	n := ids.Add(1)
	p := &pair{t: t, g: s.vm, vm: vm, ctx: ctx, tr: s.tr, role: s.role, id: fmt.Sprintf("k%d", n)}

	pc := kernelvm.PcapFor(t) // names the file after the test; usctp writes it
	pc.Close()
	p.pcap = pc.Path
	cfg := s.cfg
	cfg.Pcap = p.pcap
	if cfg.Buffers.SendBuffer == 0 {
		cfg.Buffers.SendBuffer = 4 << 20
	}
	if cfg.Buffers.RecvBuffer == 0 {
		cfg.Buffers.RecvBuffer = 4 << 20
	}
	if cfg.Timers.HeartbeatInterval == 0 {
		cfg.Timers.HeartbeatInterval = -1 // nothing in these scenarios waits for one
	}
	local := netip.MustParseAddr("127.0.0.1")
	if s.tr == udp {
		cfg.Transport = sctp.UDP
		cfg.EphemeralUDPPort = true // ephemeral: the kernel dials it as encap=PORT
		cfg.RemoteUDPPort = uint16(vm.UDPAddr().Port)
	} else {
		cfg.Transport = sctp.IP
		local = netip.MustParseAddr(kernelvm.HostTapIP)
	}
	open := func(f func() error) {
		t.Helper()
		var err error
		if s.tr == ip {
			err = vm.InNetns(f)
		} else {
			err = f()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var err error
	switch s.role {
	case client:
		l, err := vm.Do(ctx, fmt.Sprintf("listen id=%s port=0 %s", p.id, s.kopts), "READY id="+p.id+" ")
		if err != nil {
			t.Fatal(err)
		}
		open(func() (err error) { p.ep, err = sctp.NewEndpoint(local, &cfg); return err })
		p.cleanup()
		raddr := fmt.Sprintf("127.0.0.1:%d", l.Int("port"))
		if s.tr == ip {
			raddr = fmt.Sprintf("%s:%d", kernelvm.GuestTapIP, l.Int("port"))
		}
		if p.as, err = p.ep.Dial(ctx, raddr); err != nil {
			t.Fatalf("dial kernel at %s: %v (pcap %s)", raddr, err, p.pcap)
		}
		if p.kline, err = vm.WaitLine(ctx, "ACCEPT id="+p.id+" "); err != nil {
			t.Fatalf("usctp established, the kernel did not accept: %v (pcap %s)", err, p.pcap)
		}
	case server:
		port := 20000 + int(n)
		open(func() (err error) {
			p.ep, err = sctp.Listen(fmt.Sprintf("%s:%d", local, port), &cfg)
			return err
		})
		p.cleanup()
		dial := fmt.Sprintf("dial id=%s addr=%s port=%d ", p.id, kernelvm.HostTapIP, port)
		if s.tr == udp {
			dial = fmt.Sprintf("dial id=%s addr=%s port=%d encap=%d ", p.id, kernelvm.HostUserIP, port, p.ep.Addr().UDPPort)
		}
		if p.kline, err = vm.Do(ctx, dial+s.kopts, "CONNECTED id="+p.id+" "); err != nil {
			t.Fatalf("%v (pcap %s)", err, p.pcap)
		}
		if p.as, err = p.ep.AcceptContext(ctx); err != nil {
			t.Fatalf("accept the kernel's association: %v (pcap %s)", err, p.pcap)
		}
	default:
		t.Fatalf("role %q", s.role)
	}
	return p
}

// cleanup closes the endpoint when the test ends, which flushes the pcap, and checks it.
func (p *pair) cleanup() {
	p.t.Cleanup(func() {
		p.guestReport()
		p.ep.Close()
		udpPort := 0
		if p.tr == udp {
			udpPort = int(p.ep.Addr().UDPPort)
		}
		checkPcap(p.t, p.pcap, udpPort)
	})
}

// guestReport says, for a test that failed, whether the guest is still
// running and what its kernel printed last: a guest kernel that oopsed or
// panicked (QEMU exits: -no-reboot) fails a test with what its absence
// looks like to usctp (an ICMP port unreachable from QEMU's closed UDP
// port, a timeout), and its console names the real cause. It also asks
// whether the guest still reaches the host through QEMU's user network: a
// guest whose network died is replaced before the next test.
func (p *pair) guestReport() {
	if !p.t.Failed() {
		return
	}
	if exited, err := p.vm.Exited(); exited {
		p.t.Logf("the guest's QEMU has exited (%v)", err)
		return
	}
	p.t.Logf("guest console, last lines:\n%s", p.vm.ConsoleTail(25))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := p.vm.PingHost(ctx); err != nil {
		p.t.Logf("%s: %v; the next test boots a new guest", guestNetworkDead, err)
		if p.g != nil {
			p.g.markDead(p.vm)
		}
	}
	if diagnoses.Add(1) <= 4 {
		p.t.Logf("guest network:\n%s", p.vm.Diagnose(ctx))
	}
}

// guestNetworkDead starts the line of a failed test whose guest no longer reaches the
// host: .ci/test.sh looks for it.
const guestNetworkDead = "kerneltest: guest network dead"

// diagnoses counts the guest diagnoses of failed tests: the first few say what
// broke; after a guest's network died, every later test fails the same way.
var diagnoses atomic.Int64

// wait waits for kpeer's next line of this pair that starts with verb (MSG, DONE,
// EVENT, SENT, ...) and for which match, if not nil, is true.
func (p *pair) wait(verb string, match func(kernelvm.Line) bool) kernelvm.Line {
	p.t.Helper()
	l, err := p.vm.Wait(p.ctx, func(l kernelvm.Line) bool {
		return l.Verb == verb && l.Get("id") == p.id && (match == nil || match(l))
	})
	if err != nil {
		p.t.Fatalf("kernel side: waiting for %s id=%s: %v (pcap %s)", verb, p.id, err, p.pcap)
	}
	return l
}

// do sends kpeer a command about this pair's connection and waits for its answer.
func (p *pair) do(cmd, want string) kernelvm.Line {
	p.t.Helper()
	l, err := p.vm.Do(p.ctx, fmt.Sprintf(cmd, p.id), fmt.Sprintf(want, p.id))
	if err != nil {
		p.t.Fatalf("%v (pcap %s)", err, p.pcap)
	}
	return l
}

// failf reports a mismatch with the pcap's path.
func (p *pair) failf(format string, args ...any) {
	p.t.Helper()
	p.t.Fatalf(format+" (pcap %s)", append(args, p.pcap)...)
}

// readMsg reads one whole message from usctp's side.
func (p *pair) readMsg(buf []byte) ([]byte, sctp.RecvInfo, error) {
	p.as.SetReadDeadline(deadline(p.ctx))
	for {
		n, info, err := p.as.ReadMsg(buf)
		if err != nil {
			return nil, info, err
		}
		// With I-DATA, parts of messages of different streams (and of a stream's
		// ordered and unordered messages) may alternate: join them per message.
		k := partKey{info.Stream, info.Unordered}
		if info.Aborted {
			delete(p.parts, k) // the peer gave up the message being read (PR-SCTP)
			continue
		}
		if p.parts == nil {
			p.parts = map[partKey][]byte{}
		}
		msg := append(p.parts[k], buf[:n]...)
		if info.EOR {
			delete(p.parts, k)
			return msg, info, nil
		}
		p.parts[k] = msg
	}
}

// partKey names the message a part read by readMsg belongs to.
type partKey struct {
	sid       uint16
	unordered bool
}

func (p *pair) write(b []byte, info sctp.SendInfo) {
	p.t.Helper()
	p.as.SetWriteDeadline(deadline(p.ctx))
	if _, err := p.as.WriteMsg(b, info); err != nil {
		p.failf("usctp WriteMsg %d bytes on stream %d: %v", len(b), info.Stream, err)
	}
}

func deadline(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// payload fills b as kpeer's sources do: byte j of message i is byte(i*7+j).
func payload(b []byte, i int) []byte {
	for j := range b {
		b[j] = byte(i*7 + j)
	}
	return b
}

func crcHex(b []byte) string { return fmt.Sprintf("%08x", crc32.ChecksumIEEE(b)) }

// sctpdump is cmd/sctpdump, built once for the package.
var sctpdump struct {
	once sync.Once
	path string
	err  error
}

func buildSctpdump() (string, error) {
	sctpdump.once.Do(func() {
		dir, err := os.MkdirTemp("", "usctp-sctpdump-")
		if err != nil {
			sctpdump.err = err
			return
		}
		out := filepath.Join(dir, "sctpdump")
		cmd := exec.Command("go", "build", "-o", out, "github.com/usctp/usctp/cmd/sctpdump")
		if b, err := cmd.CombinedOutput(); err != nil {
			sctpdump.err = fmt.Errorf("go build cmd/sctpdump: %v\n%s", err, b)
			return
		}
		sctpdump.path = out
	})
	return sctpdump.path, sctpdump.err
}

var dumpStats = regexp.MustCompile(`stats packets=(\d+) sctp=(\d+) chunks=(\d+) malformed=(\d+)`)

// checkPcap fails the test if cmd/sctpdump finds a malformed packet or a bad checksum in
// usctp's pcap (udpPort, when not 0, is usctp's UDP encapsulation port, which every
// packet of transport A carries), or if tshark, where installed, does. sctpdump runs
// now. tshark takes seconds to start on this machine, so the pcaps of one top-level test
// (see batchPcaps) are concatenated and checked by one tshark run when that test ends,
// which fails naming the subtest, the packet and the pcap. The pcap of a test that
// passed is removed then (bulk transfers make large ones).
func checkPcap(t *testing.T, path string, udpPort int) {
	t.Helper()
	bin, err := buildSctpdump()
	if err != nil {
		t.Errorf("pcap %s not checked: %v", path, err)
		return
	}
	out, err := exec.Command(bin, "-stats", "-udp-port", fmt.Sprint(udpPort), path).CombinedOutput()
	m := dumpStats.FindSubmatch(out)
	switch {
	case m == nil:
		t.Errorf("sctpdump %s: %v\n%s", path, err, tail(out, 20))
		return
	case string(m[4]) != "0" || err != nil:
		var bad []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "malformed=") && !strings.HasPrefix(l, "stats") {
				bad = append(bad, l)
			}
		}
		t.Errorf("sctpdump finds %s malformed packets in %s (exit %v):\n%s", m[4], path, err, strings.Join(first(bad, 20), "\n"))
	case string(m[1]) != string(m[2]) || string(m[1]) == "0":
		t.Errorf("sctpdump %s: %s: want every packet decoded as SCTP and at least one", path, m[0])
	}
	top, _, _ := strings.Cut(t.Name(), "/")
	if b, ok := batches.Load(top); ok {
		packets, _ := strconv.Atoi(string(m[1]))
		b.(*pcapBatch).add(pcapFile{test: t.Name(), path: path, packets: packets, keep: t.Failed()})
		return
	}
	kernelvm.CheckPcap(t, path)
	if !t.Failed() {
		os.Remove(path)
	}
}

// batches maps a top-level test's name to its pcapBatch.
var batches sync.Map

// pcapFile is one pcap waiting for tshark.
type pcapFile struct {
	test, path string
	packets    int  // records in the file (sctpdump's count), to map tshark's frame numbers back
	keep       bool // its test failed: keep the file
}

// pcapBatch collects the pcaps of a top-level test for one tshark run.
type pcapBatch struct {
	mu    sync.Mutex
	files []pcapFile
}

func (b *pcapBatch) add(f pcapFile) {
	b.mu.Lock()
	b.files = append(b.files, f)
	b.mu.Unlock()
}

// batchPcaps makes the pcaps of t's subtests wait for one tshark run when t ends. Every
// top-level test calls it first.
func batchPcaps(t *testing.T) {
	b := &pcapBatch{}
	batches.Store(t.Name(), b)
	t.Cleanup(func() {
		batches.Delete(t.Name())
		b.check(t)
	})
}

var tsharkFrame = regexp.MustCompile(`^\s*(\d+)\s`)

func (b *pcapBatch) check(t *testing.T) {
	defer func() {
		for _, f := range b.files {
			if !f.keep && os.Getenv("USCTP_KEEP_PCAPS") == "" {
				os.Remove(f.path)
			}
		}
	}()
	if len(b.files) == 0 {
		return
	}
	if _, err := exec.LookPath("tshark"); err != nil {
		return
	}
	merged := b.files[0].path
	if len(b.files) > 1 {
		merged = filepath.Join(filepath.Dir(merged), t.Name()+"-all.pcap")
		defer os.Remove(merged)
		args := []string{"-a", "-F", "pcap", "-w", merged}
		for _, f := range b.files {
			args = append(args, f.path)
		}
		if out, err := exec.Command("mergecap", args...).CombinedOutput(); err != nil {
			t.Errorf("mergecap: %v\n%s", err, out)
			return
		}
	}
	bad, err := kernelvm.TsharkProblems(merged)
	if err != nil {
		t.Errorf("tshark on the pcaps of %s: %v", t.Name(), err)
		return
	}
	if bad == "" {
		return
	}
	per := map[int][]string{}
	for _, l := range strings.Split(bad, "\n") {
		m := tsharkFrame.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		i := 0
		for i < len(b.files)-1 && n > b.files[i].packets {
			n -= b.files[i].packets
			i++
		}
		per[i] = append(per[i], fmt.Sprintf("packet %d: %s", n, strings.TrimSpace(l[len(m[0]):])))
	}
	for i, lines := range per {
		b.files[i].keep = true
		t.Errorf("%s: tshark finds malformed packets or bad checksums in %s:\n%s", b.files[i].test, b.files[i].path, strings.Join(first(lines, 20), "\n"))
	}
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// forEach runs f as subtests transport/role for the given transports and both roles.
func forEach(t *testing.T, trs []string, f func(t *testing.T, tr, role string)) {
	for _, tr := range trs {
		for _, role := range roles {
			t.Run(tr+"/"+role, func(t *testing.T) { f(t, tr, role) })
		}
	}
}

// expectEOF reads from usctp until the end of the association and checks that it ended
// gracefully (io.EOF) with no message left.
func (p *pair) expectEOF() {
	p.t.Helper()
	buf := make([]byte, 64<<10)
	msg, info, err := p.readMsg(buf)
	if err != io.EOF {
		p.failf("usctp read after the kernel's shutdown: got %d bytes (stream %d) err=%v, want io.EOF", len(msg), info.Stream, err)
	}
}

// ppidBase starts the PPIDs the tests use: IANA has assigned none from here, so tshark
// does not hand their payload to a protocol dissector (PPID 1 is IUA, 2 M2UA, ...) that
// reports our test bytes as malformed.
const ppidBase = 1000

func itoa(i int) string { return strconv.Itoa(i) }

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
