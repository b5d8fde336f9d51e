package assoc

import (
	"testing"
)

func TestHandshakeClient(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectClient()
	tc.wantIdle()
}

func TestHandshakeServer(t *testing.T) {
	tc := newTestEndpoint(t, testConfig())
	tc.connectServer()
	tc.wantIdle()
	if got := tc.ep.Stats().InitsIn; got != 1 {
		t.Fatalf("InitsIn = %d", got)
	}
}
