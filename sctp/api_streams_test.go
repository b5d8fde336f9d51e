package sctp

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp/internal/simconn"
	"github.com/usctp/usctp/sctp/internal/simnet"
)

// simPairCfg is simPair with both endpoints' configurations adjusted by
// adj (streams, buffers, interleaving).
func simPairCfg(t *testing.T, link simnet.LinkConfig, adj func(*Config), f func(t *testing.T, c, s *Association)) {
	simPairAdj(t, link, adj, func(t *testing.T, c, s *Association, _ *Endpoint, _ *simconn.Network) { f(t, c, s) })
}

// waitRecvHeld waits (in virtual time) until as holds want bytes received
// and not yet read.
func waitRecvHeld(t *testing.T, as *Association, want int) {
	t.Helper()
	for range 1000 {
		if as.Stats().RecvBuffered == want {
			return
		}
		time.Sleep(10 * time.Millisecond) // virtual: inside the synctest bubble
	}
	t.Fatalf("the receiver never held %d bytes", want)
}

// RFC 9260 section 1.5.2: "On the receiving side, SCTP ensures that
// messages are delivered to the SCTP user in sequence within a given
// stream. However, while one stream might be blocked waiting for the next
// in-sequence user message, delivery from other streams might proceed."
// Stream(1).Read returns stream 1's message while an earlier message of
// stream 0 sits unread; ReadMsg then returns stream 0's.
func TestStreamReadIndependent(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 10 * time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		if _, err := c.WriteMsg([]byte("zero"), SendInfo{Stream: 0}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.WriteMsg([]byte("one"), SendInfo{Stream: 1, PPID: 11}); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 100)
		n1, info, err := s.Stream(1).ReadMsg(buf)
		if err != nil || string(buf[:n1]) != "one" || info.Stream != 1 || info.PPID != 11 || !info.EOR {
			t.Fatalf("Stream(1).ReadMsg: %q %+v %v", buf[:n1], info, err)
		}
		n0, info, err := s.ReadMsg(buf)
		if err != nil || string(buf[:n0]) != "zero" || info.Stream != 0 {
			t.Fatalf("ReadMsg: %q %+v %v", buf[:n0], info, err)
		}
	})
}

// ReadMsg returns messages in the order they became deliverable, across
// streams, with Stream readers taking their streams' messages out of that
// order; and a message read in parts continues wherever the next read
// comes from.
func TestStreamMixedReaders(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 10 * time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		big := make([]byte, 3000)
		for i := range big {
			big[i] = byte(i / 1000)
		}
		writes := []struct {
			sid uint16
			msg []byte
		}{{4, []byte("a")}, {5, []byte("b")}, {4, big}, {6, []byte("c")}, {5, []byte("d")}}
		for _, w := range writes {
			if _, err := c.WriteMsg(w.msg, SendInfo{Stream: w.sid}); err != nil {
				t.Fatal(err)
			}
		}
		waitRecvHeld(t, s, 3004)
		buf := make([]byte, 1000)
		// Stream 5 first, out of arrival order.
		if n, err := s.Stream(5).Read(buf); err != nil || string(buf[:n]) != "b" {
			t.Fatalf("Stream(5): %q %v", buf[:n], err)
		}
		// ReadMsg: "a", then the first part of the big message.
		if n, info, err := s.ReadMsg(buf); err != nil || string(buf[:n]) != "a" || info.Stream != 4 {
			t.Fatalf("ReadMsg: %q %+v %v", buf[:n], info, err)
		}
		var got []byte
		n1, info, err := s.ReadMsg(buf)
		if err != nil || n1 != 1000 || info.EOR || info.Stream != 4 {
			t.Fatalf("ReadMsg part 1: %d %+v %v", n1, info, err)
		}
		got = append(got, buf[:n1]...)
		// Stream 4's reader continues it, ReadMsg ends it.
		n2, err := s.Stream(4).Read(buf)
		if err != nil || n2 != 1000 {
			t.Fatalf("Stream(4) part 2: %d %v", n2, err)
		}
		got = append(got, buf[:n2]...)
		n3, info, err := s.ReadMsg(buf)
		if err != nil || n3 != 1000 || !info.EOR || info.Stream != 4 {
			t.Fatalf("ReadMsg part 3: %d %+v %v", n3, info, err)
		}
		got = append(got, buf[:n3]...)
		if !bytes.Equal(got, big) {
			t.Fatal("the big message was read wrong")
		}
		for _, want := range []string{"c", "d"} {
			if n, _, err := s.ReadMsg(buf); err != nil || string(buf[:n]) != want {
				t.Fatalf("ReadMsg: %q %v, want %q", buf[:n], err, want)
			}
		}
	})
}

// A Stream's read deadline holds while other streams get data: their
// messages do not end its wait, and it still gets its own data afterwards.
func TestStreamDeadlineOthersBusy(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 10 * time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		st := s.Stream(3)
		start := time.Now()
		st.SetReadDeadline(start.Add(2 * time.Second))
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range 30 {
				if _, err := c.WriteMsg([]byte{byte(i)}, SendInfo{Stream: uint16(i % 3)}); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
		buf := make([]byte, 10)
		if _, err := st.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Stream(3).Read: %v, want the deadline", err)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Fatalf("deadline after %v", d)
		}
		<-done
		st.SetReadDeadline(time.Time{})
		if _, err := c.WriteMsg([]byte("three"), SendInfo{Stream: 3}); err != nil {
			t.Fatal(err)
		}
		if n, err := st.Read(buf); err != nil || string(buf[:n]) != "three" {
			t.Fatalf("Stream(3).Read: %q %v", buf[:n], err)
		}
		for i := range 30 {
			if n, info, err := s.ReadMsg(buf); err != nil || n != 1 || buf[0] != byte(i) || info.Stream != uint16(i%3) {
				t.Fatalf("ReadMsg %d: %v %+v %v", i, buf[:n], info, err)
			}
		}
	})
}

// A stream nobody reads does not keep another stream's large message,
// which needs partial delivery, from its reader: the partial delivery
// starts on the stream whose reader waits.
func TestStreamPartialDeliveryUnreadStream(t *testing.T) {
	adj := func(c *Config) { c.Buffers.RecvBuffer = 64 << 10 }
	simPairCfg(t, simnet.LinkConfig{Delay: 5 * time.Millisecond}, adj, func(t *testing.T, c, s *Association) {
		for i := range 8 {
			if _, err := c.WriteMsg(make([]byte, 2000), SendInfo{Stream: 0, PPID: uint32(i)}); err != nil {
				t.Fatal(err)
			}
		}
		big := make([]byte, 200<<10) // three times the receive buffer
		for i := range big {
			big[i] = byte(i * 7 >> 8)
		}
		go func() {
			if _, err := c.WriteMsg(big, SendInfo{Stream: 1}); err != nil {
				t.Error(err)
			}
		}()
		st := s.Stream(1)
		st.SetReadDeadline(time.Now().Add(time.Minute))
		var got []byte
		buf := make([]byte, 10000)
		for len(got) < len(big) {
			n, info, err := st.ReadMsg(buf)
			if err != nil {
				t.Fatalf("after %d bytes: %v", len(got), err)
			}
			got = append(got, buf[:n]...)
			if info.EOR != (len(got) == len(big)) {
				t.Fatalf("EOR %v at %d bytes", info.EOR, len(got))
			}
		}
		if !bytes.Equal(got, big) {
			t.Fatal("the big message was read wrong")
		}
		for i := range 8 {
			if n, info, err := s.ReadMsg(buf); err != nil || n != 2000 || info.PPID != uint32(i) {
				t.Fatalf("stream 0 message %d: %d %+v %v", i, n, info, err)
			}
		}
	})
}

// Many goroutines each read their own stream while one more reads with
// ReadMsg, with thousands of messages over a lossy link, DATA or I-DATA:
// each message is read exactly once, and every reader sees each stream's
// messages in order.
func TestStreamManyReaders(t *testing.T) {
	for _, idata := range []bool{false, true} {
		t.Run(fmt.Sprintf("idata=%v", idata), func(t *testing.T) {
			adj := func(c *Config) { c.Extensions.Interleaving = idata; c.Buffers.RecvBuffer = 128 << 10 }
			link := simnet.LinkConfig{Delay: 5 * time.Millisecond, Loss: 0.01, Reorder: 0.01}
			simPairCfg(t, link, adj, func(t *testing.T, c, s *Association) {
				manyReaders(t, c, s)
			})
		})
	}
}

func manyReaders(t *testing.T, c, s *Association) {
	const (
		streams = 16
		readers = 12 // streams 0-11 have their own reader; ReadMsg gets 12-15 and anything it finds first
		msgs    = 4000
	)
	var mu sync.Mutex
	seen := make([]int, msgs) // times each message was read
	var wg sync.WaitGroup
	// record checks a message (sequence number i and its stream's count
	// k, then filler) and the order of k within what this reader saw of
	// its stream.
	record := func(who string, sid uint16, p []byte, last map[uint16]int) error {
		if len(p) < 8 {
			return fmt.Errorf("%s: %d-byte message", who, len(p))
		}
		i, k := int(binary.BigEndian.Uint32(p)), int(binary.BigEndian.Uint32(p[4:]))
		if i >= msgs || i%streams != int(sid) || len(p) != 8+i%700 {
			return fmt.Errorf("%s: message %d of %d bytes on stream %d", who, i, len(p), sid)
		}
		if prev, ok := last[sid]; ok && k <= prev {
			return fmt.Errorf("%s: stream %d message %d after %d", who, sid, k, prev)
		}
		last[sid] = k
		mu.Lock()
		seen[i]++
		mu.Unlock()
		return nil
	}
	errc := make(chan error, readers+1)
	for sid := range uint16(readers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := s.Stream(sid)
			buf := make([]byte, 1000)
			last := map[uint16]int{}
			for {
				n, info, err := st.ReadMsg(buf)
				if err == io.EOF {
					errc <- nil
					return
				}
				if err != nil || !info.EOR || info.Stream != sid {
					errc <- fmt.Errorf("stream %d: %+v %v", sid, info, err)
					return
				}
				if err := record(fmt.Sprint("Stream ", sid), sid, buf[:n], last); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 1000)
		last := map[uint16]int{}
		for {
			n, info, err := s.ReadMsg(buf)
			if err == io.EOF {
				errc <- nil
				return
			}
			if err != nil || !info.EOR {
				errc <- fmt.Errorf("ReadMsg: %+v %v", info, err)
				return
			}
			if err := record("ReadMsg", info.Stream, buf[:n], last); err != nil {
				errc <- err
				return
			}
		}
	}()
	var count [streams]uint32
	for i := range msgs {
		sid := uint16(i % streams)
		m := make([]byte, 8+i%700)
		binary.BigEndian.PutUint32(m, uint32(i))
		binary.BigEndian.PutUint32(m[4:], count[sid])
		count[sid]++
		if _, err := c.WriteMsg(m, SendInfo{Stream: sid, Unordered: false}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, k := range seen {
		if k != 1 {
			t.Fatalf("message %d read %d times", i, k)
		}
	}
}

// A Stream's settings change while other goroutines write: each Write
// takes the settings of its start (no data race, which -race would
// report), so on an ordered stream the PPIDs arrive in the order they
// were set, and the unordered setting applies to the writes after it.
func TestStreamSettingsWhileWriting(t *testing.T) {
	simPair(t, simnet.LinkConfig{Delay: 10 * time.Millisecond}, func(t *testing.T, c, s *Association, l *Endpoint, n *simconn.Network) {
		st := c.Stream(3)
		const writes = 200
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := range writes {
				st.SetPPID(uint32(i))
				time.Sleep(time.Millisecond)
			}
		}()
		for range writes {
			if _, err := st.Write([]byte("m")); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond / 2)
		}
		<-done
		st.SetUnordered(true)
		st.SetPR(MaxRetransmits(3))
		if _, err := st.Write([]byte("last")); err != nil {
			t.Fatal(err)
		}
		if st.PPID() != writes-1 || !st.Unordered() || st.PR() != MaxRetransmits(3) {
			t.Fatalf("settings %d %v %v", st.PPID(), st.Unordered(), st.PR())
		}
		buf := make([]byte, 10)
		last := uint32(0)
		for i := range writes + 1 {
			k, info, err := s.Stream(3).ReadMsg(buf)
			if err != nil {
				t.Fatal(err)
			}
			if i == writes {
				if string(buf[:k]) != "last" || !info.Unordered || info.PPID != writes-1 {
					t.Fatalf("last message %q %+v", buf[:k], info)
				}
				break
			}
			if info.PPID < last || info.Unordered {
				t.Fatalf("message %d: PPID %d after %d, unordered %v", i, info.PPID, last, info.Unordered)
			}
			last = info.PPID
		}
	})
}

// TestSimServerFollowsPeerStreams: a listener that left OutStreams to its
// default opens as many outbound streams as the client opened toward it
// (100 here, the default being 10), so an echo server that answers on the
// stream a message came in on has that stream; one that set OutStreams
// keeps its choice.
func TestSimServerFollowsPeerStreams(t *testing.T) {
	for _, c := range []struct {
		server, want uint16
	}{{0, 100}, {10, 10}, {200, 200}} {
		adj := func(cfg *Config) { cfg.OutStreams, cfg.InStreams = c.server, 0 }
		simPairAdj(t, simnet.LinkConfig{Delay: time.Millisecond}, adj, func(t *testing.T, _, _ *Association, l *Endpoint, n *simconn.Network) {
			ca := simSocket(t, n, "10.0.0.3:9899")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cl, err := dialNew(ctx, "10.0.0.2:5000", &Config{OutStreams: 100}, ca)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Abort("done")
			if out, _ := cl.Streams(); out != 100 {
				t.Fatalf("client: %d outbound streams, want 100", out)
			}
			if _, err := cl.WriteMsg([]byte("ping"), SendInfo{Stream: 99}); err != nil {
				t.Fatal(err)
			}
			s := accept(t, l)
			out, _ := s.Streams()
			if out != c.want {
				t.Fatalf("server with OutStreams %d: %d outbound streams, want %d", c.server, out, c.want)
			}
			buf := make([]byte, 10)
			n2, ri, err := s.ReadMsg(buf)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.WriteMsg(buf[:n2], SendInfo{Stream: ri.Stream})
			if c.want >= 100 && err != nil {
				t.Fatalf("echo on stream %d: %v", ri.Stream, err)
			}
			if c.want < 100 && !errors.Is(err, ErrStreamID) {
				t.Fatalf("echo on stream %d with %d streams: %v, want ErrStreamID", ri.Stream, c.want, err)
			}
		})
	}
}
