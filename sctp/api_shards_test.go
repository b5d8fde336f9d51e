//go:build linux

package sctp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestListenShardsSpreadsAssociations: n endpoints share one UDP port
// (SO_REUSEPORT); associations dialled from different UDP ports spread
// over them, and each carries its data end to end through the shard that
// accepted it.
func TestListenShardsSpreadsAssociations(t *testing.T) {
	const shards, assocs = 2, 16
	eps, err := ListenShards("127.0.0.1:5000", shards, loopCfg())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eps {
		t.Cleanup(func() { e.Close() })
		if e.Addr() != eps[0].Addr() {
			t.Fatalf("shard on %v, first on %v", e.Addr(), eps[0].Addr())
		}
	}
	dc := *loopCfg()
	dc.RemoteUDPPort = eps[0].Addr().UDPPort

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var (
		mu       sync.Mutex
		accepted = make([]int, shards)
		wg       sync.WaitGroup
		total    = make(chan struct{}, assocs)
	)
	for i, e := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				a, err := e.AcceptContext(ctx)
				if err != nil {
					return
				}
				mu.Lock()
				accepted[i]++
				mu.Unlock()
				go func() { // echo one message
					buf := make([]byte, 64)
					n, info, err := a.ReadMsg(buf)
					if err == nil {
						a.WriteMsg(buf[:n], SendInfo{Stream: info.Stream})
					}
				}()
				total <- struct{}{}
			}
		}()
	}
	var dwg sync.WaitGroup
	errs := make(chan error, assocs)
	for i := range assocs {
		dwg.Add(1)
		go func() {
			defer dwg.Done()
			a, err := Dial(ctx, "127.0.0.1:5000", &dc) // its own UDP port
			if err != nil {
				errs <- err
				return
			}
			defer a.Close()
			msg := fmt.Appendf(nil, "association %d", i)
			if _, err := a.WriteMsg(msg, SendInfo{Stream: 1}); err != nil {
				errs <- err
				return
			}
			buf := make([]byte, 64)
			n, _, err := a.ReadMsg(buf)
			if err != nil || string(buf[:n]) != string(msg) {
				errs <- fmt.Errorf("association %d: echo %q, %v", i, buf[:n], err)
			}
		}()
	}
	dwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for range assocs {
		<-total
	}
	cancel()
	wg.Wait()
	t.Logf("associations per shard: %v", accepted)
	for i, n := range accepted {
		// 16 associations from 16 ports all hashed onto one of two
		// shards: probability 2^-15.
		if n == 0 {
			t.Errorf("shard %d accepted none of %d associations: %v", i, assocs, accepted)
		}
	}
}

// TestListenShardsRefusesOtherTransports: only UDP sockets can share a
// port this way.
func TestListenShardsRefusesOtherTransports(t *testing.T) {
	if _, err := ListenShards("127.0.0.1:5000", 2, &Config{Transport: IP}); err == nil {
		t.Error("raw IP shards: no error")
	}
	if _, err := ListenShards("127.0.0.1:5000", 0, loopCfg()); err == nil {
		t.Error("0 shards: no error")
	}
}

// TestListenShardsNeedTheirOwnPort: shards on an address and UDP port a
// listener of the process holds (alone, or shared with other processes)
// fail with EADDRINUSE instead of joining its socket's group.
func TestListenShardsNeedTheirOwnPort(t *testing.T) {
	for _, exclusive := range []bool{false, true} {
		l, port := onFreeUDPPort(t, "127.0.0.1", func(port uint16) (*Endpoint, error) {
			return Listen(fmt.Sprintf("127.0.0.1:5001/udp:%d", port), &Config{ExclusiveUDPPort: exclusive})
		})
		_, err := ListenShards(fmt.Sprintf("127.0.0.1:5002/udp:%d", port), 2, nil)
		l.Close()
		if !errors.Is(err, syscall.EADDRINUSE) {
			t.Fatalf("ExclusiveUDPPort %v: shards beside a listener: %v, want EADDRINUSE", exclusive, err)
		}
	}
}
