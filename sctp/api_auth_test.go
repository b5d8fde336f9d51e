package sctp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// TestAuthAPI: two endpoints of the public API with AUTH on DATA and SACK
// over the simulated network exchange messages byte-exact; keys are
// rotated with AddKey, SetActiveKey and DeleteKey during the transfer; the
// key material never appears in a printed Config key.
func TestAuthAPI(t *testing.T) {
	link := simnet.LinkConfig{Delay: 5 * time.Millisecond, Loss: 0.01}
	adj := func(c *Config) {
		c.Extensions.AuthChunks = []chunk.Type{chunk.TypeData, chunk.TypeSack}
		c.Extensions.AuthHMAC = []uint16{AuthHMACSHA1}
		c.Extensions.AuthKeys = []AuthKey{{ID: 3, Key: []byte("s3cr3t-key")}}
	}
	simPairCfg(t, link, adj, func(t *testing.T, cl, sv *Association) {
		cfg := Config{Extensions: Extensions{AuthChunks: []chunk.Type{chunk.TypeData, chunk.TypeSack},
			AuthHMAC: []uint16{AuthHMACSHA1}, AuthKeys: []AuthKey{{ID: 3, Key: []byte("s3cr3t-key")}}}}
		if s := fmt.Sprintf("%v %+v %#v", cfg.Extensions.AuthKeys[0], cfg.Extensions.AuthKeys, cfg.Extensions.AuthKeys[0]); strings.Contains(s, "s3cr3t") {
			t.Fatalf("key printed: %s", s)
		}
		for _, as := range []*Association{cl, sv} {
			if id, ok := as.Authenticated(); !ok || id != AuthHMACSHA1 {
				t.Fatalf("Authenticated() = %d, %v", id, ok)
			}
		}
		exchange := func(n int) {
			t.Helper()
			for i := range n {
				msg := bytes.Repeat([]byte{byte(i)}, 100+i*37%3000)
				if _, err := cl.WriteMsg(msg, SendInfo{}); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 4096)
				k, _, err := sv.ReadMsg(buf)
				if err != nil || !bytes.Equal(buf[:k], msg) {
					t.Fatalf("message %d: %v, %d bytes", i, err, k)
				}
			}
		}
		exchange(50)
		for _, as := range []*Association{cl, sv} {
			if err := as.AddKey(4, []byte("next")); err != nil {
				t.Fatal(err)
			}
			if err := as.DeleteKey(3); err != ErrAuthActiveKey {
				t.Fatalf("DeleteKey(active) = %v", err)
			}
		}
		for _, as := range []*Association{cl, sv} {
			if err := as.SetActiveKey(4); err != nil {
				t.Fatal(err)
			}
		}
		exchange(20)
		for _, as := range []*Association{cl, sv} {
			if err := as.DeleteKey(3); err != nil {
				t.Fatal(err)
			}
		}
		exchange(20)
		if err := cl.SetActiveKey(3); err != ErrAuthUnknownKey {
			t.Fatalf("SetActiveKey(deleted) = %v", err)
		}
		st := sv.Stats()
		if st.Auth.Verified == 0 || st.Auth.BadHMAC+st.Auth.Missing+st.Auth.UnknownKey != 0 {
			t.Fatalf("server AUTH counters %+v", st.Auth)
		}
	})
}

// TestDynamicAddrsConfig: Config.Extensions.DynamicAddrs makes both ends offer ASCONF
// and authenticate it; the association is authenticated even with no key
// configured (the empty key, id 0).
func TestDynamicAddrsConfig(t *testing.T) {
	link := simnet.LinkConfig{Delay: 5 * time.Millisecond}
	simPairCfg(t, link, func(c *Config) { c.Extensions.DynamicAddrs = true }, func(t *testing.T, cl, sv *Association) {
		for _, as := range []*Association{cl, sv} {
			if _, ok := as.Authenticated(); !ok {
				t.Fatal("DynamicAddrs without AUTH")
			}
		}
		if _, err := cl.WriteMsg([]byte("hello"), SendInfo{}); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		if n, _, err := sv.ReadMsg(buf); err != nil || string(buf[:n]) != "hello" {
			t.Fatalf("read %q, %v", buf[:n], err)
		}
		if AddrAdded.String() != "added" {
			t.Fatal(AddrAdded.String())
		}
		ctx := context.Background()
		if err := cl.AddLocalAddr(ctx, netip.MustParseAddr("10.0.0.9")); err != ErrNotLocalAddr {
			t.Fatalf("AddLocalAddr of an address the endpoint does not own: %v", err)
		}
		if err := cl.SetPeerPrimary(ctx, netip.MustParseAddr("10.0.0.1")); err != nil {
			t.Fatalf("SetPeerPrimary: %v", err)
		}
		var ae *ASCONFError
		if err := cl.RemoveLocalAddr(ctx, netip.MustParseAddr("10.0.0.1")); !errors.As(err, &ae) || ae.Cause != 0xA0 {
			t.Fatalf("RemoveLocalAddr of the last address: %v", err)
		}
	})
}
