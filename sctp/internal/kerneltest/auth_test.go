package kerneltest

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/kernelvm"
)

// TestKernelAuth runs authenticated associations (RFC 4895) against Linux 6.1
// (net.sctp.auth_enable=1; kpeer sets SCTP_AUTH_CHUNK for DATA and SACK, SCTP_HMAC_IDENT
// and an endpoint shared key with SCTP_AUTH_KEY / SCTP_AUTH_ACTIVE_KEY), usctp in both
// roles over UDP, with HMAC-SHA-1 and HMAC-SHA-256: messages up to 9000 bytes echoed
// byte-exact while both ends require DATA and SACK to be authenticated, and a key
// rotation in the middle of the transfer: both ends add key 2, the kernel makes it active
// (usctp sees EventAuthNewKey), usctp does too, both delete key 1 (usctp sees
// EventAuthKeyFree). usctp's counters show AUTH chunks sent and verified and none dropped.
func TestKernelAuth(t *testing.T) {
	batchPcaps(t)
	for _, hm := range []struct {
		name  string
		kopts string
		ids   []uint16
	}{
		{"sha1", "hmac=1", []uint16{sctp.AuthHMACSHA1}},
		{"sha256", "hmac=3,1", []uint16{sctp.AuthHMACSHA256, sctp.AuthHMACSHA1}},
	} {
		t.Run(hm.name, func(t *testing.T) {
			forEach(t, []string{udp}, func(t *testing.T, tr, role string) { kernelAuth(t, tr, role, hm.kopts, hm.ids) })
		})
	}
}

func kernelAuth(t *testing.T, tr, role, hmacOpts string, ids []uint16) {
	sysctls(t, "auth_enable")
	key1, key2 := []byte("usctp kernel interop key one"), []byte("and the second key, rotated in")
	kopts := fmt.Sprintf("mode=echo authchunks=0,3 %s authkey=1:%s", hmacOpts, hex.EncodeToString(key1))
	cfg := sctp.Config{Extensions: sctp.Extensions{AuthChunks: []chunk.Type{chunk.TypeData, chunk.TypeSack}, AuthHMAC: ids,
		AuthKeys: []sctp.AuthKey{{ID: 1, Key: key1}}}}
	p := newPair(t, setup{tr: tr, role: role, kopts: kopts, cfg: cfg})
	if id, ok := p.as.Authenticated(); !ok || id != ids[0] {
		p.failf("usctp: AUTH negotiated %v with HMAC %d, want %d (kernel %s)", ok, id, ids[0], p.kline)
	}
	buf := make([]byte, 64<<10)
	seq := 0
	echo := func(n int) {
		t.Helper()
		for range n {
			size := []int{1, 100, 1200, 1452, 4000, 9000}[seq%6]
			msg := payload(make([]byte, size), seq)
			p.write(msg, sctp.SendInfo{Stream: 0, PPID: uint32(ppidBase + seq)})
			got, info, err := p.readMsg(buf)
			if err != nil || info.PPID != uint32(ppidBase+seq) || !bytes.Equal(got, msg) {
				p.failf("echo %d: %v, PPID %d, %d bytes (want %d)", seq, err, info.PPID, len(got), size)
			}
			seq++
		}
	}
	waitEvent := func(k sctp.EventKind, id uint16) {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case ev := <-p.as.Events():
				if ev.Kind == k && ev.KeyID == id {
					return
				}
			case <-timeout:
				p.failf("no %v event for key %d", k, id)
			}
		}
	}
	echo(30)
	if err := p.as.AddKey(2, key2); err != nil {
		p.failf("AddKey: %v", err)
	}
	p.do("authkey id=%s keyid=2 key="+hex.EncodeToString(key2)+" active=1", "OK cmd=authkey id=%s ")
	echo(30)
	waitEvent(sctp.EventAuthNewKey, 2)
	if err := p.as.SetActiveKey(2); err != nil {
		p.failf("SetActiveKey: %v", err)
	}
	echo(30)
	p.do("authdel id=%s keyid=1", "OK cmd=authdel id=%s ")
	if err := p.as.DeleteKey(1); err != nil {
		p.failf("DeleteKey: %v", err)
	}
	waitEvent(sctp.EventAuthKeyFree, 1)
	echo(30)
	a := p.as.Stats().Auth
	if a.Sent == 0 || a.Verified == 0 || a.BadHMAC+a.UnknownKey+a.UnsupportedHMAC+a.Missing != 0 {
		p.failf("usctp AUTH counters %+v", a)
	}
	t.Logf("AUTH counters %+v", a)
}

// sysctls sets the net.sctp sysctls named to 1 in the guest for the test (kernel sockets
// created from now on), and back to 0 when it ends.
func sysctls(t *testing.T, names ...string) {
	t.Helper()
	sysctlsOn(t, kvm.Get(t), names...)
}

// sysctlsOn is sysctls in the guest vm.
func sysctlsOn(t *testing.T, vm *kernelvm.VM, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := vm.Do(ctxFor(t, time.Minute), "sysctl net.sctp."+n+"=1", "OK cmd=sysctl"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			vm.Do(ctx, "sysctl net.sctp."+n+"=0", "OK cmd=sysctl")
		})
	}
}

// TestKernelAuthASCONF: Linux 6.1 (auth_enable=1, addip_enable=1) adds and then deletes
// an address of its end of an association with usctp (kpeer bindx: sctp_bindx on the
// connected socket, which sends ASCONF), while messages are echoed: usctp
// (Config.Extensions.DynamicAddrs) accepts the authenticated ASCONFs, answers them (the kernel
// goes on), reports EventPeerAddrChange added and removed, and every message comes back
// byte-exact. The added address is not reachable from the host: its path stays
// unconfirmed and carries no data, as RFC 5061 wants. Then usctp sends its own
// authenticated ASCONFs: Set Primary Address of its address (accepted) and Delete IP
// Address of it, which the kernel refuses as the last remaining one.
func TestKernelAuthASCONF(t *testing.T) {
	batchPcaps(t)
	vm := kvm.Get(t)
	sysctls(t, "auth_enable", "addip_enable")
	ctx := ctxFor(t, 2*time.Minute)
	const extra = "10.0.2.99"
	if _, err := vm.Do(ctx, "run id=ipadd /bin/ip addr add "+extra+"/32 dev lo", "STARTED id=ipadd"); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.WaitLine(ctx, "EXIT id=ipadd "); err != nil {
		t.Fatal(err)
	}
	p := newPair(t, setup{tr: udp, role: client, kopts: "mode=echo addr=" + kernelvm.GuestUserIP,
		cfg: sctp.Config{Extensions: sctp.Extensions{DynamicAddrs: true}}})
	buf := make([]byte, 64<<10)
	seq := 0
	echo := func(n int) {
		t.Helper()
		for range n {
			msg := payload(make([]byte, 100+seq*53%3000), seq)
			p.write(msg, sctp.SendInfo{PPID: uint32(ppidBase + seq)})
			got, _, err := p.readMsg(buf)
			if err != nil || !bytes.Equal(got, msg) {
				p.failf("echo %d: %v, %d bytes", seq, err, len(got))
			}
			seq++
		}
	}
	waitChange := func(c sctp.AddrChange) {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case ev := <-p.as.Events():
				if ev.Kind == sctp.EventPeerAddrChange && ev.Change == c {
					if ev.Addr.IP.String() != extra {
						p.failf("%v for %v, want %s", c, ev.Addr, extra)
					}
					return
				}
			case <-timeout:
				p.failf("no EventPeerAddrChange %v", c)
			}
		}
	}
	echo(20)
	p.do("bindx id=%s addr="+extra+" op=add", "OK cmd=bindx id=%s ")
	waitChange(sctp.AddrAdded)
	echo(20)
	p.do("bindx id=%s addr="+extra+" op=del", "OK cmd=bindx id=%s ")
	waitChange(sctp.AddrRemoved)
	echo(20)
	// usctp's own requests: the kernel sees us at HostUserIP (QEMU's NAT). Set Primary
	// to it succeeds; deleting it, the only address, is refused.
	us := netip.MustParseAddr(kernelvm.HostUserIP)
	if err := p.as.SetPeerPrimary(p.ctx, us); err != nil {
		p.failf("SetPeerPrimary(%v): %v", us, err)
	}
	var ae *sctp.ASCONFError
	if err := p.as.RemoveLocalAddr(p.ctx, us); !errors.As(err, &ae) || (ae.Cause != 0xA0 && ae.Cause != 0xA2) {
		p.failf("RemoveLocalAddr(%v) = %v, want the kernel's refusal", us, err)
	}
	t.Logf("the kernel refused the delete: %v", ae)
	echo(20)
	st := p.as.Stats()
	if st.ASCONF.AcksIn != 2 {
		p.failf("ASCONF counters %+v", st.ASCONF)
	}
	if st.ASCONF.In != 2 || st.ASCONF.AddrsAdded != 1 || st.ASCONF.AddrsDeleted != 1 || st.Auth.Missing+st.Auth.BadHMAC != 0 {
		p.failf("ASCONF counters %+v, AUTH %+v", st.ASCONF, st.Auth)
	}
	t.Logf("ASCONF %+v AUTH %+v", st.ASCONF, st.Auth)
}

// TestKernelAuthASCONFPaths: addresses added by ASCONF (RFC 5061) carry the data once
// the first link is cut, in the multi-homed guest (kernel 6.1, two NICs; auth_enable=1,
// addip_enable=1). The association starts single-homed on the first link: usctp's
// endpoint is bound to the wildcard address (it announces none: the kernel knows it by
// the INIT's source, 198.18.0.1), kpeer listens on 198.18.0.2 only. Messages are echoed
// byte-exact throughout while
//   - usctp adds its address on the second link (AddLocalAddr 198.19.0.1): the kernel
//     accepts it and confirms it with a HEARTBEAT (kpeer reports it confirmed);
//   - the kernel adds its own (kpeer bindx 198.19.0.2): usctp reports
//     EventPeerAddrChange added and confirms it; both ends then have two active paths;
//   - the first link is cut (VM.SetLink): the echoes go on over the second link, both
//     ways;
//   - both ends delete the address the association was set up with: the kernel its
//     198.18.0.2 (kpeer bindx del; usctp moves the association's key to 198.19.0.2 and
//     RemoteAddrs lists it alone), usctp its 198.18.0.1 (RemoveLocalAddr; the kernel
//     accepts, its paths list 198.19.0.1 alone), and the echoes go on.
//
// tshark reads usctp's pcap: DATA went to 198.19.0.2 and came from it to 198.19.0.1,
// after the cut; the four ASCONFs and their ASCONF-ACKs each carried an AUTH chunk.
func TestKernelAuthASCONFPaths(t *testing.T) {
	batchPcaps(t)
	vm := kvmMH.Get(t)
	if !vm.HasTap() {
		kernelvm.Unavailable(t, errors.New("the multi-homed guest needs root for its network namespace"))
	}
	sysctlsOn(t, vm, "auth_enable", "addip_enable")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	n := ids.Add(1)
	p := &pair{t: t, g: kvmMH, vm: vm, ctx: ctx, tr: ip, role: client, id: fmt.Sprintf("k%d", n)}
	pc := kernelvm.PcapFor(t)
	pc.Close()
	p.pcap = pc.Path
	cfg := sctp.Config{
		Transport: sctp.IP, Pcap: p.pcap, Buffers: sctp.Buffers{SendBuffer: 4 << 20, RecvBuffer: 4 << 20},
		Paths: sctp.Paths{Multihoming: true}, Extensions: sctp.Extensions{DynamicAddrs: true},
		Timers: sctp.Timers{HeartbeatInterval: time.Second},
	}
	l, err := vm.Do(ctx, fmt.Sprintf("listen id=%s addr=%s port=0 mode=echo paddr=1", p.id, guestIPs[0]), "READY id="+p.id+" ")
	if err != nil {
		t.Fatal(err)
	}
	if err := vm.InNetns(func() (err error) { p.ep, err = sctp.NewEndpoint(netip.Addr{}, &cfg); return err }); err != nil {
		t.Fatal(err)
	}
	p.cleanup()
	if p.as, err = p.ep.DialAddrs(ctx, guestIPs[:1], uint16(l.Int("port"))); err != nil {
		t.Fatalf("dial kernel at %v: %v (pcap %s)", guestIPs[0], err, p.pcap)
	}
	if p.kline, err = vm.WaitLine(ctx, "ACCEPT id="+p.id+" "); err != nil {
		t.Fatalf("usctp established, the kernel did not accept: %v (pcap %s)", err, p.pcap)
	}
	if len(p.as.Paths()) != 1 {
		p.failf("usctp paths %+v, want the kernel's one address", p.as.Paths())
	}
	p.do("paddrparams id=%s hbinterval=1000", "OK cmd=paddrparams id=%s")

	buf := make([]byte, 64<<10)
	seq := 0
	echo := func(n int) {
		t.Helper()
		for range n {
			msg := payload(make([]byte, 100+seq*53%3000), seq)
			p.write(msg, sctp.SendInfo{PPID: uint32(ppidBase + seq)})
			got, info, err := p.readMsg(buf)
			if err != nil || info.PPID != uint32(ppidBase+seq) || !bytes.Equal(got, msg) {
				p.failf("echo %d: %v, PPID %d, %d bytes (want %d)", seq, err, info.PPID, len(got), len(msg))
			}
			seq++
		}
	}
	echo(20)

	// usctp adds 198.19.0.1; the kernel confirms it before sending there. AddLocalAddr
	// checks the address is the host's: in the namespace that has it.
	if err := vm.InNetns(func() error { return p.as.AddLocalAddr(ctx, hostIPs[1]) }); err != nil {
		p.failf("AddLocalAddr(%v): %v", hostIPs[1], err)
	}
	kl := p.wait("EVENT", func(l kernelvm.Line) bool {
		return l.Get("type") == "peer_addr_change" && l.Get("addr") == hostIPs[1].String() &&
			(l.Get("state") == "confirmed" || l.Get("state") == "available")
	})
	t.Logf("kernel: %s", kl)
	echo(20)

	// The kernel adds 198.19.0.2; usctp confirms it.
	p.do("bindx id=%s addr="+guestIPs[1].String()+" op=add", "OK cmd=bindx id=%s ")
	timeout := time.After(time.Minute)
	for added := false; !added; {
		select {
		case ev := <-p.as.Events():
			if ev.Kind == sctp.EventPeerAddrChange && ev.Change == sctp.AddrAdded {
				if ev.Addr.IP != guestIPs[1] {
					p.failf("EventPeerAddrChange added %v, want %v", ev.Addr, guestIPs[1])
				}
				added = true
			}
		case <-timeout:
			p.failf("no EventPeerAddrChange added for %v", guestIPs[1])
		}
	}
	p.waitPaths(2)
	echo(20)

	// Cut the first link: the echoes go on over the second.
	if err := vm.SetLink(0, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vm.SetLink(0, true) })
	cutAt := time.Now()
	echo(60)
	t.Logf("60 echoes after the cut in %v", time.Since(cutAt).Round(time.Millisecond))

	// Both ends delete the address the association was set up with, now
	// unreachable: the kernel its own (usctp re-keys the association on
	// 198.19.0.2), usctp its own (its ASCONF goes from 198.19.0.1).
	p.do("bindx id=%s addr="+guestIPs[0].String()+" op=del", "OK cmd=bindx id=%s ")
	timeout = time.After(time.Minute)
	for removed := false; !removed; {
		select {
		case ev := <-p.as.Events():
			if ev.Kind == sctp.EventPeerAddrChange && ev.Change == sctp.AddrRemoved {
				if ev.Addr.IP != guestIPs[0] {
					p.failf("EventPeerAddrChange removed %v, want %v", ev.Addr, guestIPs[0])
				}
				removed = true
			}
		case <-timeout:
			p.failf("no EventPeerAddrChange removed for %v", guestIPs[0])
		}
	}
	if ra := p.as.RemoteAddrs(); len(ra) != 1 || ra[0].IP != guestIPs[1] {
		p.failf("usctp RemoteAddrs %+v after the kernel deleted %v, want %v alone", ra, guestIPs[0], guestIPs[1])
	}
	if err := p.as.RemoveLocalAddr(ctx, hostIPs[0]); err != nil {
		p.failf("RemoveLocalAddr(%v): %v", hostIPs[0], err)
	}
	// The kernel's view: usctp's one address left (SCTP_GET_PEER_ADDR_INFO).
	p.do("paths id=%s", "OK cmd=paths id=%s")
	var kpaths []string
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
	for {
		l, err := vm.Wait(wctx, func(l kernelvm.Line) bool { return l.Verb == "PATH" && l.Get("id") == p.id })
		if err != nil {
			break
		}
		kpaths = append(kpaths, l.Get("addr")+" "+l.Get("state"))
	}
	wcancel()
	if len(kpaths) != 1 || kpaths[0] != hostIPs[1].String()+" active" {
		p.failf("the kernel's paths after usctp deleted %v: %v, want %v active alone", hostIPs[0], kpaths, hostIPs[1])
	}
	t.Logf("the kernel's paths: %v", kpaths)
	echo(20)
	st := p.as.Stats()
	if st.ASCONF.AcksIn != 2 || st.ASCONF.In != 2 || st.ASCONF.AddrsAdded != 1 || st.ASCONF.AddrsDeleted != 1 || st.Auth.Missing+st.Auth.BadHMAC != 0 {
		p.failf("ASCONF counters %+v, AUTH %+v", st.ASCONF, st.Auth)
	}
	t.Logf("usctp paths %+v; ASCONF %+v AUTH %+v", p.as.Paths(), st.ASCONF, st.Auth)
	if err := p.as.Shutdown(ctx); err != nil {
		p.failf("usctp Shutdown: %v", err)
	}
	p.ep.Close() // flushes the pcap
	checkASCONFPaths(t, p.pcap, cutAt)
}

// checkASCONFPaths reads the pcap of TestKernelAuthASCONFPaths with tshark: DATA both
// ways on the second link after cut, and an AUTH chunk before every ASCONF and
// ASCONF-ACK.
func checkASCONFPaths(t *testing.T, path string, cut time.Time) {
	t.Helper()
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Logf("tshark not installed: the paths of the DATA not checked")
		return
	}
	out, err := exec.Command("tshark", "-r", path, "-T", "fields", "-E", "separator=;",
		"-e", "frame.time_epoch", "-e", "ip.src", "-e", "ip.dst", "-e", "sctp.chunk_type").Output()
	if err != nil {
		t.Fatalf("tshark %s: %v", path, err)
	}
	var toKernel, fromKernel, asconf int
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(l, ";")
		if len(f) != 4 {
			continue
		}
		sec, _ := strconv.ParseFloat(f[0], 64)
		types := strings.Split(f[3], ",")
		for i, ty := range types {
			if ty == "193" || ty == "128" { // ASCONF, ASCONF-ACK
				asconf++
				if i == 0 || types[i-1] != "15" {
					t.Errorf("%s: an ASCONF or ASCONF-ACK without an AUTH before it: chunks %s (%s -> %s)", path, f[3], f[1], f[2])
				}
			}
		}
		if !slices.Contains(types, "0") || time.Unix(0, int64(sec*1e9)).Before(cut) {
			continue
		}
		switch {
		case f[1] == hostIPs[1].String() && f[2] == guestIPs[1].String():
			toKernel++
		case f[1] == guestIPs[1].String() && f[2] == hostIPs[1].String():
			fromKernel++
		}
	}
	if toKernel == 0 || fromKernel == 0 || asconf != 8 {
		t.Errorf("%s: after the cut %d DATA packets %v -> %v and %d back; %d ASCONF and ASCONF-ACK (want 8)",
			path, toKernel, hostIPs[1], guestIPs[1], fromKernel, asconf)
	}
	t.Logf("after the cut: %d DATA packets to the kernel's added address, %d from it to usctp's; %d ASCONF/ASCONF-ACK, each authenticated", toKernel, fromKernel, asconf)
}
