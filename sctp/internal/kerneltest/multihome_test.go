package kerneltest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"net/netip"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// kvmMH is the multi-homed guest (kernel 6.1): two tap devices, on 198.18.0.0/24 and
// 198.19.0.0/24, each a NIC of the guest. Only TestKernelMultihom* boot it.
var kvmMH = &guestVM{cfg: kernelvm.Config{Tap: true, Tap2: true, MemoryMB: 512}}

var (
	hostIPs  = []netip.Addr{netip.MustParseAddr(kernelvm.HostTapIP), netip.MustParseAddr(kernelvm.HostTap2IP)}
	guestIPs = []netip.Addr{netip.MustParseAddr(kernelvm.GuestTapIP), netip.MustParseAddr(kernelvm.GuestTap2IP)}
)

// mhBytes is the size of each multi-homed bulk transfer; the primary link is cut
// after a quarter of it.
const mhBytes = 8 << 20

// newMHPair starts a multi-homed association between usctp (the host side of both
// taps) and the guest kernel (both NICs) over SCTP on IP, with usctp in role. Both ends
// list both addresses; the primaries are the first tap's. Heartbeats go every second
// on each path, at both ends. With wild usctp is bound to no address and lists the
// host's (Config.Paths.Multihoming on a wildcard endpoint).
func newMHPair(t *testing.T, role, kopts string, events chan<- sctp.Event, wild bool) *pair {
	t.Helper()
	vm := kvmMH.Get(t)
	if !vm.HasTap() {
		kernelvm.Unavailable(t, errors.New("the multi-homed guest needs root for its network namespace"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	t.Cleanup(cancel)
	n := ids.Add(1)
	p := &pair{t: t, g: kvmMH, vm: vm, ctx: ctx, tr: ip, role: role, id: fmt.Sprintf("k%d", n)}
	pc := kernelvm.PcapFor(t)
	pc.Close()
	p.pcap = pc.Path
	cfg := sctp.Config{
		Transport: sctp.IP, Pcap: p.pcap, Buffers: sctp.Buffers{SendBuffer: 4 << 20, RecvBuffer: 4 << 20},
		Paths: sctp.Paths{Multihoming: true}, LocalAddrs: hostIPs, Timers: sctp.Timers{HeartbeatInterval: time.Second},
	}
	laddr := fmt.Sprintf("%s,%s", hostIPs[0], hostIPs[1])
	if wild {
		cfg.LocalAddrs, laddr = nil, ""
	}
	open := func(f func() error) {
		t.Helper()
		if err := vm.InNetns(f); err != nil {
			t.Fatal(err)
		}
	}
	kopts += " paddr=1 buf=4194304"
	// SCTP_PEER_ADDR_CHANGE with SCTP_ADDR_POTENTIALLY_FAILED, and the PF state in
	// SCTP_GET_PEER_ADDR_INFO, only when PF is exposed (net.sctp.pf_expose=2,
	// SCTP_PF_EXPOSE_ENABLE; 1 makes the getsockopt fail with EACCES on a PF path);
	// sockets take it when they are created.
	if _, err := vm.Do(ctx, "sysctl net.sctp.pf_expose=2", "OK cmd=sysctl"); err != nil {
		t.Fatal(err)
	}
	var err error
	switch role {
	case client:
		l, err := vm.Do(ctx, fmt.Sprintf("listen id=%s addr=%s,%s port=0 %s", p.id, guestIPs[0], guestIPs[1], kopts), "READY id="+p.id+" ")
		if err != nil {
			t.Fatal(err)
		}
		open(func() (err error) { p.ep, err = sctp.NewEndpoint(netip.Addr{}, &cfg); return err })
		p.cleanup()
		if p.as, err = p.ep.DialAddrs(ctx, guestIPs, uint16(l.Int("port"))); err != nil {
			t.Fatalf("dial kernel at %v: %v (pcap %s)", guestIPs, err, p.pcap)
		}
		if p.kline, err = vm.WaitLine(ctx, "ACCEPT id="+p.id+" "); err != nil {
			t.Fatalf("usctp established, the kernel did not accept: %v (pcap %s)", err, p.pcap)
		}
	case server:
		port := 20000 + int(n)
		open(func() (err error) {
			p.ep, err = sctp.Listen(fmt.Sprintf("%s:%d", laddr, port), &cfg)
			return err
		})
		p.cleanup()
		dial := fmt.Sprintf("dial id=%s addr=%s,%s bind=%s,%s port=%d ", p.id, hostIPs[0], hostIPs[1], guestIPs[0], guestIPs[1], port)
		if p.kline, err = vm.Do(ctx, dial+kopts, "CONNECTED id="+p.id+" "); err != nil {
			t.Fatalf("%v (pcap %s)", err, p.pcap)
		}
		if p.as, err = p.ep.AcceptContext(ctx); err != nil {
			t.Fatalf("accept the kernel's association: %v (pcap %s)", err, p.pcap)
		}
	}
	go func() {
		for ev := range p.as.Events() {
			if ev.Kind == sctp.EventPeerAddrChange {
				select {
				case events <- ev:
				default:
				}
			}
		}
	}()
	// The kernel's heartbeats: every second on each path, like usctp's. Its
	// timers still run with the default 30 s until they fire: a HEARTBEAT on
	// demand to each address now re-arms them (only the one address that
	// confirmed itself in the handshake, not always the same, had one before
	// the transfer otherwise, and checkHeartbeatsPerPath failed).
	p.do("paddrparams id=%s hbinterval=1000", "OK cmd=paddrparams id=%s")
	for _, a := range hostIPs {
		p.do(fmt.Sprintf("paddrparams id=%%s addr=%s hbinterval=1000 demand=1", a), "OK cmd=paddrparams id=%s")
	}
	return p
}

// waitPaths waits until usctp sees both of the kernel's addresses active (the second
// one confirmed by a HEARTBEAT on its path).
func (p *pair) waitPaths(want int) {
	p.t.Helper()
	for {
		active := 0
		for _, pi := range p.as.Paths() {
			if pi.State == sctp.PathActive {
				active++
			}
		}
		if active == want {
			return
		}
		select {
		case <-p.ctx.Done():
			p.failf("usctp paths %+v, want %d active", p.as.Paths(), want)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestKernelMultihom cuts the primary link (the first tap) during a bulk transfer
// between usctp and the Linux kernel, both multi-homed on two subnets: usctp as client
// and as server, data to the kernel and from it. The transfer completes byte-exact on
// the second path; both ends report the first path's failure (usctp's
// EventPeerAddrChange and Paths, the kernel's SCTP_PEER_ADDR_CHANGE); HEARTBEATs went
// on both paths both ways; tshark reads every packet of usctp's pcap.
//
// In the wildcard variants (to the kernel) usctp is bound to no address, with
// Multihoming: it lists the host's addresses (its namespace's two taps) in its INIT or
// INIT ACK, and the kernel learns usctp's second address from that list alone (it
// must, to take usctp's DATA from there after the cut and to send HEARTBEATs there).
func TestKernelMultihom(t *testing.T) {
	batchPcaps(t)
	count := mhBytes / bulkMsg
	for _, role := range roles {
		for _, v := range []struct {
			dir  string
			wild bool
		}{{"to-kernel", false}, {"from-kernel", false}, {"to-kernel", true}} {
			dir, name := v.dir, role+"/"+v.dir
			if v.wild {
				name += "-wildcard"
			}
			t.Run(name, func(t *testing.T) {
				kopts := "mode=sink log=0"
				if dir == "from-kernel" {
					// then=wait: the association stays up after the data, so that
					// usctp, a receiver that learns the cut from its HEARTBEATs
					// only, has the time to; usctp then shuts it down.
					kopts = fmt.Sprintf("mode=source log=0 count=%d size=%d ppid=%d then=wait", count, bulkMsg, ppidBase)
				}
				events := make(chan sctp.Event, 64)
				p := newMHPair(t, role, kopts, events, v.wild)
				p.waitPaths(2)
				// Heartbeats go every second (+ RTO, with jitter) on each path at
				// both ends: give each path time for some both ways before the
				// cut, which checkHeartbeatsPerPath then finds in the pcap.
				select {
				case <-time.After(6 * time.Second):
				case <-p.ctx.Done():
				}
				var cutOnce sync.Once
				var cutAt time.Time
				cut := func() {
					cutOnce.Do(func() {
						if err := p.vm.SetLink(0, false); err != nil {
							t.Fatal(err)
						}
						cutAt = time.Now()
						t.Logf("link %s-%s cut", hostIPs[0], guestIPs[0])
					})
				}
				t.Cleanup(func() { p.vm.SetLink(0, true) })
				start := time.Now()
				if dir == "to-kernel" {
					msg := make([]byte, bulkMsg)
					var crc uint32
					for i := range count {
						if i == count/4 {
							cut()
						}
						payload(msg, i)
						crc = crc32.Update(crc, crc32.IEEETable, msg)
						p.write(msg, sctp.SendInfo{PPID: ppidBase})
					}
					// The kernel's view before the association ends.
					kernelSawCut(p)
					if err := p.as.Shutdown(p.ctx); err != nil {
						p.failf("usctp Shutdown after %d bytes: %v", mhBytes, err)
					}
					l := p.wait("DONE", nil)
					if l.Int("msgs") != count || l.Int("bytes") != mhBytes || l.Get("crc") != fmt.Sprintf("%08x", crc) || l.Get("end") != "eof" {
						p.failf("kernel: %s; want msgs=%d bytes=%d crc=%08x end=eof", l, count, mhBytes, crc)
					}
				} else {
					buf := make([]byte, 2*bulkMsg)
					want := make([]byte, bulkMsg)
					for n := range count {
						if n == count/4 {
							cut()
						}
						got, info, err := p.readMsg(buf)
						if err != nil {
							p.failf("usctp ReadMsg after %d messages: %v", n, err)
						}
						if info.PPID != ppidBase || !bytes.Equal(got, payload(want, n)) {
							p.failf("usctp message %d: PPID %d %d bytes (crc %s); want PPID %d %d bytes (crc %s) of %d",
								n, info.PPID, len(got), crcHex(got), ppidBase, bulkMsg, crcHex(want), count)
						}
					}
					kernelSawCut(p) // the sender: its T3-rtx on the cut path
					usctpSawCut(p)  // the receiver: its HEARTBEATs there
					if err := p.as.Shutdown(p.ctx); err != nil {
						p.failf("usctp Shutdown: %v", err)
					}
					if l := p.wait("DONE", nil); l.Get("end") != "eof" {
						p.failf("kernel: %s; want end=eof", l)
					}
				}
				t.Logf("%d MB in %v, the first link cut %v after the start", mhBytes>>20,
					time.Since(start).Round(time.Millisecond), cutAt.Sub(start).Round(time.Millisecond))
				// usctp saw the first path fail.
				var down []string
			drain:
				for {
					select {
					case ev := <-events:
						if ev.Addr.IP == guestIPs[0] && ev.PathState != sctp.PathActive {
							down = append(down, ev.PathState.String())
						}
					default:
						break drain
					}
				}
				if len(down) == 0 {
					p.failf("usctp reported no state change of %v after the cut", guestIPs[0])
				}
				st := p.as.Stats()
				if st.PathFailovers == 0 {
					p.failf("usctp PathFailovers 0 after the cut")
				}
				t.Logf("usctp: %v went %v; PathFailovers %d, T3 expiries %d", guestIPs[0], down, st.PathFailovers, st.T3Expiries)
				p.ep.Close() // flushes the pcap (the cleanup's Close does nothing more)
				checkHeartbeatsPerPath(t, p.pcap)
			})
		}
	}
}

// kernelSawCut checks that the kernel noticed the cut: its SCTP_GET_PEER_ADDR_INFO
// shows usctp's first address not active, or it reported it potentially failed or
// unreachable (SCTP_PEER_ADDR_CHANGE) within 20 seconds. The association must still
// be up when the paths are asked for; after it ended only the event can tell.
func kernelSawCut(p *pair) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	down := func(l kernelvm.Line) bool {
		return l.Verb == "EVENT" && l.Get("id") == p.id && l.Get("type") == "peer_addr_change" &&
			l.Get("addr") == hostIPs[0].String() && (l.Get("state") == "potentially_failed" || l.Get("state") == "unreachable")
	}
	for {
		pathDown := false
		if _, err := p.vm.Do(ctx, fmt.Sprintf("paths id=%s", p.id), fmt.Sprintf("OK cmd=paths id=%s", p.id)); err == nil {
			for range hostIPs {
				l, err := p.vm.Wait(ctx, func(l kernelvm.Line) bool { return l.Verb == "PATH" && l.Get("id") == p.id })
				if err != nil {
					break
				}
				p.t.Logf("kernel: %s", l)
				if l.Get("addr") == hostIPs[0].String() && l.Get("state") != "active" {
					pathDown = true
				}
			}
		}
		wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
		l, err := p.vm.Wait(wctx, down)
		wcancel()
		if err == nil {
			p.t.Logf("kernel: %s", l)
			return
		}
		if pathDown {
			return
		}
		if ctx.Err() != nil {
			p.failf("the kernel shows no failure of %v", hostIPs[0])
		}
	}
}

// usctpSawCut waits (20 s at most) until usctp counts a failover (the kernel's first
// address left the active state): as a receiver it learns it from its unanswered
// HEARTBEATs. The association may have ended meanwhile (the kernel's source closes
// once all it sent is acknowledged, while the data waits unread): the counters stay.
func usctpSawCut(p *pair) {
	p.t.Helper()
	end := time.Now().Add(20 * time.Second)
	for p.as.Stats().PathFailovers == 0 {
		if time.Now().After(end) {
			p.failf("usctp counts no failover 20 s after the cut; paths %+v", p.as.Paths())
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Logf("usctp: paths %+v", p.as.Paths())
}

// checkHeartbeatsPerPath reads usctp's pcap with tshark and checks that HEARTBEAT
// chunks went to each of the four addresses: usctp's to both of the kernel's, the
// kernel's to both of usctp's.
func checkHeartbeatsPerPath(t *testing.T, path string) {
	t.Helper()
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Logf("tshark not installed: heartbeats per path not checked")
		return
	}
	out, err := exec.Command("tshark", "-r", path, "-Y", "sctp.chunk_type == 4", "-T", "fields", "-e", "ip.dst").Output()
	if err != nil {
		t.Errorf("tshark %s: %v", path, err)
		return
	}
	got := map[string]int{}
	for _, l := range strings.Fields(string(out)) {
		got[l]++
	}
	for _, a := range append(append([]netip.Addr(nil), hostIPs...), guestIPs...) {
		if got[a.String()] == 0 {
			t.Errorf("no HEARTBEAT to %v in %s (HEARTBEATs per destination: %v)", a, path, got)
		}
	}
	t.Logf("HEARTBEATs per destination: %v", got)
}
