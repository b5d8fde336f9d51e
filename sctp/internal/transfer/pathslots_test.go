package transfer

import (
	"testing"

	"github.com/usctp/usctp/sctp/internal/api"
)

// TestPathSlotsReused: a removed path's slot goes to the next AddPath, so
// a peer that keeps replacing its addresses (RFC 5061) never runs out of
// the 32 paths; path 0 and the primary cannot be removed.
func TestPathSlotsReused(t *testing.T) {
	cfg := Config{LocalTSN: 1000, PeerTSN: 5000, OutStreams: 2, InStreams: 2, PeerRwnd: api.DefaultBuffer}
	e := newSide(t, "A", cfg, 1).e
	for i := range 100 {
		j, err := e.AddPath(false)
		if err != nil || j != 1 {
			t.Fatalf("cycle %d: AddPath = %d, %v; want slot 1 again", i, j, err)
		}
		if !e.RemovePath(j) {
			t.Fatalf("cycle %d: RemovePath(%d) refused", i, j)
		}
	}
	if e.RemovePath(0) {
		t.Fatal("path 0 removed")
	}
	j, _ := e.AddPath(false)
	e.SetPrimary(j)
	if e.RemovePath(j) {
		t.Fatal("the primary removed")
	}
	if n := e.NumPaths(); n != 2 {
		t.Fatalf("%d paths, want 2", n)
	}
}
