package kernelvm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/interleave"
	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/stream"
)

// iDataValue is an I-DATA chunk's value (RFC 8260 section 2.1): TSN,
// stream, reserved, MID, then the PPID (first fragment) or the FSN.
func iDataValue(tsn uint32, sid uint16, mid, ppidOrFSN uint32, data []byte) []byte {
	v := make([]byte, 16, 16+len(data))
	binary.BigEndian.PutUint32(v[0:], tsn)
	binary.BigEndian.PutUint16(v[4:], sid)
	binary.BigEndian.PutUint32(v[8:], mid)
	binary.BigEndian.PutUint32(v[12:], ppidOrFSN)
	return append(v, data...)
}

// TestKernelIDataFSN settles the I-DATA interop question of
// kernel-design.md section 4.3 against the guest kernel, over raw IP: which
// FSN Linux gives the second fragment of a message it sends, and which
// numbering it accepts. It negotiates I-DATA by hand (INIT listing I-DATA
// and I-FORWARD-TSN), has kpeer send a 4000-byte message (three I-DATA
// fragments at the tap's MTU), reassembles what arrives with the I-DATA
// reassembler in FSNAuto mode, and sends two three-fragment messages of
// its own: one numbered the RFC 8260 way (FSN 1, 2 after the first
// fragment) on stream 1, one numbered Linux's way (0, 1) on stream 2, to
// see which kpeer receives.
func TestKernelIDataFSN(t *testing.T) {
	vm := kvm.Get(t)
	if !vm.HasTap() {
		Unavailable(t, fmt.Errorf("transport B needs root for its network namespace"))
	}
	ctx := ctxFor(t, 2*time.Minute)
	const lport, kport = 40020, 5020
	if _, err := vm.Do(ctx, "sysctl net.sctp.intl_enable=1", "OK cmd=sysctl"); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.Do(ctx, fmt.Sprintf("listen id=intl port=%d mode=sink intl=1", kport), "READY id=intl "); err != nil {
		t.Fatal(err)
	}
	r := newRawPeer(t, vm, lport)
	myTag, myTSN := uint32(0x1da7a001), uint32(5000)

	// INIT with Supported Extensions (I-DATA, I-FORWARD-TSN) -> INIT ACK.
	init := make([]byte, 16, 24)
	binary.BigEndian.PutUint32(init[0:], myTag)
	binary.BigEndian.PutUint32(init[4:], 1<<20)
	binary.BigEndian.PutUint16(init[8:], 10)
	binary.BigEndian.PutUint16(init[10:], 10)
	binary.BigEndian.PutUint32(init[12:], myTSN)
	init = append(init, 0x80, 0x08, 0, 6, byte(chunk.TypeIData), byte(chunk.TypeIForwardTSN), 0, 0)
	ack, err := retry(ctx, func() ([]byte, error) {
		r.send(packet(lport, kport, 0, 1, 0, init))
		return r.recv()
	})
	if err != nil {
		t.Fatal(err)
	}
	ia, err := parseInitAck(ack)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := chunks(ack)
	if err != nil {
		t.Fatal(err)
	}
	ext := param(cs[0].value[16:], 0x8008)
	if !bytes.Contains(ext, []byte{byte(chunk.TypeIData)}) {
		t.Fatalf("kernel INIT ACK lists extensions %v: no I-DATA (intl_enable, intl=1)", ext)
	}
	t.Logf("kernel INIT ACK Supported Extensions: %v", ext)
	cookie := param(cs[0].value[16:], 7)
	r.send(packet(lport, kport, ia.initiateTag, 10, 0, cookie))
	r.expect(ctx, myTag, 11)
	if _, err := vm.WaitLine(ctx, "ACCEPT id=intl "); err != nil {
		t.Fatal(err)
	}

	// The kernel sends a 4000-byte message: collect its I-DATA fragments.
	if _, err := vm.Do(ctx, "send id=intl sid=3 ppid=77 len=4000 seq=1", "SENT id=intl "); err != nil {
		t.Fatal(err)
	}
	tab := stream.NewTable[struct{}, interleave.InSide](10, 10)
	re := interleave.NewIDataReassembler(tab, interleave.FSNAuto)
	var fsns []string
	var got []byte
	for done := false; !done; {
		p := r.expect(ctx, myTag, 64)
		pcs, _ := chunks(p)
		for _, c := range pcs {
			if c.typ != 64 {
				continue
			}
			d, err := chunk.ParseIData(chunk.Chunk{Type: chunk.TypeIData, Flags: c.flags, Value: c.value})
			if err != nil {
				t.Fatal(err)
			}
			if d.Beginning() {
				fsns = append(fsns, "B")
			} else {
				fsns = append(fsns, fmt.Sprint(d.FSN))
			}
			if !re.Add(interleave.FragFromIData(re.Pool(), &d)) {
				t.Fatalf("reassembler refused kernel fragment %+v", d)
			}
			r.send(packet(lport, kport, ia.initiateTag, 3, 0, sackValue(uint32(d.TSN), 1<<20)))
		}
		for f := re.Pop(); f != nil; f = re.Pop() {
			got = append(got, f.Data...)
			done = done || f.Flags&chunk.FlagEnd != 0
		}
	}
	t.Logf("kernel %s: the fragments of one message carry FSNs %v (B: the first, with the PPID instead); read as %v",
		vm.Guest().Release, fsns, map[interleave.FSNConvention]string{interleave.FSNAuto: "undecided",
			interleave.FSNRFC: "RFC 8260", interleave.FSNLinux: "Linux"}[re.Convention()])
	want := make([]byte, 4000)
	for j := range want {
		want[j] = byte(1*7 + j)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("reassembled %d bytes, not kpeer's message", len(got))
	}

	// Our messages: RFC numbering on stream 1, Linux numbering on stream 2.
	tsn := myTSN
	frag := func(sid uint16, flags uint8, x uint32) {
		r.send(packet(lport, kport, ia.initiateTag, 64, flags, iDataValue(tsn, sid, 0, x, bytes.Repeat([]byte{byte(sid)}, 1000))))
		tsn++
	}
	frag(1, 0x02, 11)
	frag(1, 0x00, 1)
	frag(1, 0x01, 2)
	frag(2, 0x02, 22)
	frag(2, 0x00, 0)
	frag(2, 0x01, 1)
	seen := map[int]bool{}
	wctx := ctxFor(t, 5*time.Second)
	for len(seen) < 2 {
		l, err := vm.WaitLine(wctx, "MSG id=intl ")
		if err != nil {
			break
		}
		seen[l.Int("sid")] = l.Int("len") == 3000
		t.Logf("kpeer: %s", l)
	}
	t.Logf("kernel %s delivered the RFC-numbered message: %v; the Linux-numbered one: %v", vm.Guest().Release, seen[1], seen[2])
	if !seen[1] && !seen[2] {
		t.Fatal("the kernel delivered neither numbering")
	}
	// What the sender must do follows from it: transfer.Config.Extensions.InterleaveFSN and
	// IDataFramer.Follow switch to Linux's numbering for such a peer.
	if re.Convention() == interleave.FSNLinux && seen[1] {
		t.Log("note: this kernel sends Linux's numbering but also accepts RFC 8260's")
	}
}
