package main

import (
	"context"
	"testing"
	"time"
)

// TestSendCountsEveryByte runs the server and the client in one process
// over loopback: the server's report counts every byte the client wrote,
// including a last write shorter than the others.
func TestSendCountsEveryByte(t *testing.T) {
	ln, err := listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- serveOne(ln) }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const total = 4<<20 + 1234
	sent, r, err := send(ctx, ln.Addr().String(), 0, total, 65536)
	if err != nil {
		t.Fatal(err)
	}
	if sent != total || r.Bytes != total {
		t.Fatalf("sent %d, server received %d, want %d", sent, r.Bytes, total)
	}
	if r.Seconds <= 0 {
		t.Fatalf("report of %v s", r.Seconds)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
