package kerneltest

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
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
	vm := kvm.Get(t)
	if _, err := vm.Do(ctxFor(t, time.Minute), "sysctl net.sctp.auth_enable=1", "OK cmd=sysctl"); err != nil {
		t.Fatal(err)
	}
	key1, key2 := []byte("usctp kernel interop key one"), []byte("and the second key, rotated in")
	kopts := fmt.Sprintf("mode=echo authchunks=0,3 %s authkey=1:%s", hmacOpts, hex.EncodeToString(key1))
	cfg := sctp.Config{AuthChunks: []chunk.Type{chunk.TypeData, chunk.TypeSack}, AuthHMAC: ids,
		AuthKeys: []sctp.AuthKey{{ID: 1, Key: key1}}}
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
