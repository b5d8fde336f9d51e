// Command datachannels is a pion/webrtc v4 program, written against
// pion/webrtc's API only: two PeerConnections in one process, connected
// over loopback, exchange data channel messages. The pion replace module's
// tests build it unchanged over pion/sctp and over usctp.
//
// Without flags it checks the channels and prints "ok": a reliable
// ordered channel carrying 8 MiB in messages up to 256 KiB paced by
// BufferedAmount and OnBufferedAmountLow, every byte checked; unordered
// channels with maxRetransmits 0 and with maxPacketLifeTime, each
// delivering messages before its end (an end marker, or the channel's
// close when the marker was given up); 64 channels
// echoed and closed by the answering side; the offerer closing a channel;
// zero checksums negotiated. With -bench it sends 64 KiB messages on one
// reliable channel for that long, paced by the buffered amount, and prints
// the throughput the receiver saw. With -snap both peers enable SNAP
// (SettingEngine.EnableSctpSnap): the check fails unless both session
// descriptions carry an sctp-init attribute.
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/webrtc/v4"
)

// snap enables SNAP on both peers.
var snap = flag.Bool("snap", false, "enable SNAP (the SCTP INIT in the SDP) on both peers")

func main() {
	bench := flag.Duration("bench", 0, "send 64 KiB messages for this long and print the throughput")
	flag.Parse()
	var err error
	if *bench > 0 {
		err = runBench(*bench)
	} else {
		err = runCheck()
	}
	if err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
}

// peers returns two connected PeerConnections; setup runs on the offerer
// before the offer (it creates the offerer's channels) and onDC handles
// the answerer's channels.
func peers(setup func(*webrtc.PeerConnection) error, onDC func(*webrtc.DataChannel)) (*webrtc.PeerConnection, *webrtc.PeerConnection, error) {
	var se webrtc.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetInterfaceFilter(func(name string) bool { return name == "lo" })
	se.EnableSCTPZeroChecksum(true)
	se.EnableSctpSnap(*snap)
	api := webrtc.NewAPI(webrtc.WithSettingEngine(se))
	offer, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, nil, err
	}
	answer, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, nil, err
	}
	answer.OnDataChannel(onDC)
	if err := setup(offer); err != nil {
		return nil, nil, err
	}
	// Complete gathering before each description, so no trickling.
	o, err := offer.CreateOffer(nil)
	if err != nil {
		return nil, nil, err
	}
	done := webrtc.GatheringCompletePromise(offer)
	if err := offer.SetLocalDescription(o); err != nil {
		return nil, nil, err
	}
	<-done
	if err := answer.SetRemoteDescription(*offer.LocalDescription()); err != nil {
		return nil, nil, err
	}
	a, err := answer.CreateAnswer(nil)
	if err != nil {
		return nil, nil, err
	}
	done = webrtc.GatheringCompletePromise(answer)
	if err := answer.SetLocalDescription(a); err != nil {
		return nil, nil, err
	}
	<-done
	if err := offer.SetRemoteDescription(*answer.LocalDescription()); err != nil {
		return nil, nil, err
	}
	if *snap {
		for _, d := range []*webrtc.SessionDescription{offer.LocalDescription(), answer.LocalDescription()} {
			if !strings.Contains(d.SDP, "a=sctp-init:") {
				return nil, nil, fmt.Errorf("SNAP enabled, and the %s has no sctp-init attribute", d.Type)
			}
		}
	}
	return offer, answer, nil
}

// result collects the outcome of the checks.
type result struct {
	mu     sync.Mutex
	errs   []error
	wg     sync.WaitGroup
	closed atomic.Int32 // channels the offerer saw closed by the answerer
	echoes atomic.Int32 // echoes the offerer got back
	// What arrived, for the message of a timeout.
	bulkGot atomic.Int64
	ended   sync.Map // label -> true once its channel's end was seen
}

func (r *result) fail(format string, args ...any) {
	r.mu.Lock()
	r.errs = append(r.errs, fmt.Errorf(format, args...))
	r.mu.Unlock()
}

const (
	bulkBytes = 8 << 20
	manyChans = 64
	maxMsg    = 256 << 10
)

// bulkMessage returns message i of the bulk transfer: its sequence number,
// its length, a CRC32 of the body, then the body.
func bulkMessage(i int) []byte {
	n := 1 + (i*7919)%maxMsg
	if i%16 == 0 {
		n = maxMsg
	}
	m := make([]byte, 12+n)
	for j := range n {
		m[12+j] = byte(i + j*31)
	}
	binary.BigEndian.PutUint32(m, uint32(i))
	binary.BigEndian.PutUint32(m[4:], uint32(n))
	binary.BigEndian.PutUint32(m[8:], crc32.ChecksumIEEE(m[12:]))
	return m
}

func runCheck() error {
	var r result
	r.wg.Add(4 + manyChans)
	sendBulk := func(dc *webrtc.DataChannel) {
		low := lowSignal(dc, 512<<10)
		dc.OnOpen(func() {
			go func() {
				sent := 0
				for i := 0; sent < bulkBytes; i++ {
					m := bulkMessage(i)
					if err := dc.Send(m); err != nil {
						r.fail("bulk: Send: %v", err)
						return
					}
					sent += len(m) - 12
					for dc.BufferedAmount() > 1<<20 {
						select {
						case <-low:
						case <-time.After(5 * time.Second):
							r.fail("bulk: no OnBufferedAmountLow with %d bytes buffered", dc.BufferedAmount())
							return
						}
					}
				}
				if err := dc.SendText("end"); err != nil {
					r.fail("bulk: SendText: %v", err)
				}
			}()
		})
	}
	setup := func(pc *webrtc.PeerConnection) error {
		bulk, err := pc.CreateDataChannel("bulk", nil)
		if err != nil {
			return err
		}
		sendBulk(bulk)
		no := false
		zero := uint16(0)
		life := uint16(100)
		for _, c := range []struct {
			label string
			init  *webrtc.DataChannelInit
		}{
			{"rexmit0", &webrtc.DataChannelInit{Ordered: &no, MaxRetransmits: &zero}},
			{"lifetime", &webrtc.DataChannelInit{Ordered: &no, MaxPacketLifeTime: &life}},
		} {
			dc, err := pc.CreateDataChannel(c.label, c.init)
			if err != nil {
				return err
			}
			dc.OnOpen(func() {
				for i := range 100 {
					if err := dc.Send([]byte(fmt.Sprintf("%s %d", c.label, i))); err != nil {
						r.fail("%s: Send: %v", c.label, err)
						return
					}
				}
				dc.SendText("end")
				// The end may be given up like any message of the channel
				// (its lifetime passes on a loaded machine): the close,
				// a stream reset, always arrives.
				dc.Close()
			})
		}
		// The offerer closes this one.
		closing, err := pc.CreateDataChannel("closing", nil)
		if err != nil {
			return err
		}
		closing.OnOpen(func() {
			closing.SendText("bye")
			closing.Close()
		})
		for i := range manyChans {
			dc, err := pc.CreateDataChannel(fmt.Sprintf("many %d", i), nil)
			if err != nil {
				return err
			}
			want := fmt.Sprintf("echo %d", i)
			dc.OnOpen(func() { dc.SendText(want) })
			dc.OnMessage(func(m webrtc.DataChannelMessage) {
				if string(m.Data) != want {
					r.fail("%s: echo %q", dc.Label(), m.Data)
				}
				r.echoes.Add(1)
			})
			dc.OnClose(func() {
				r.closed.Add(1)
				r.wg.Done()
			})
		}
		return nil
	}
	onDC := func(dc *webrtc.DataChannel) {
		switch label := dc.Label(); {
		case label == "bulk":
			next, got := 0, 0
			dc.OnMessage(func(m webrtc.DataChannelMessage) {
				if m.IsString {
					if string(m.Data) != "end" || got < bulkBytes {
						r.fail("bulk: %q after %d bytes", m.Data, got)
					}
					r.ended.Store(label, true)
					r.wg.Done()
					return
				}
				if !bytes.Equal(m.Data, bulkMessage(next)) {
					r.fail("bulk: message %d (%d bytes) differs", next, len(m.Data))
				}
				next++
				got += len(m.Data) - 12
				r.bulkGot.Store(int64(got))
			})
		case label == "rexmit0" || label == "lifetime":
			var n atomic.Int32
			var once sync.Once
			end := func() {
				once.Do(func() {
					if n.Load() == 0 {
						r.fail("%s: no message before the end", label)
					}
					r.ended.Store(label, true)
					r.wg.Done()
				})
			}
			dc.OnMessage(func(m webrtc.DataChannelMessage) {
				if string(m.Data) == "end" {
					end()
					return
				}
				n.Add(1)
			})
			dc.OnClose(end)
		case label == "closing":
			dc.OnClose(func() {
				r.ended.Store(label, true)
				r.wg.Done()
			})
		default:
			dc.OnMessage(func(m webrtc.DataChannelMessage) {
				if err := dc.SendText(string(m.Data)); err != nil {
					r.fail("%s: echo: %v", label, err)
				}
				// The answerer closes: its echo goes first.
				dc.Close()
			})
		}
	}
	offer, answer, err := peers(setup, onDC)
	if err != nil {
		return err
	}
	defer offer.Close()
	defer answer.Close()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		var missing []string
		for _, l := range []string{"bulk", "rexmit0", "lifetime", "closing"} {
			if _, ok := r.ended.Load(l); !ok {
				missing = append(missing, l)
			}
		}
		return fmt.Errorf("timed out; %d of %d channels closed by the answerer; bulk: %d of %d bytes; no end on %v; %v",
			r.closed.Load(), manyChans, r.bulkGot.Load(), bulkBytes, missing, r.errs)
	}
	for _, pc := range []*webrtc.PeerConnection{offer, answer} {
		md, ok := pc.SCTP().Metadata()
		if !ok || !md.ZeroChecksumSendingEnabled || !md.ZeroChecksumReceivingEnabled {
			r.fail("SCTP metadata %+v (%v): zero checksum not negotiated", md, ok)
		}
	}
	if n := r.echoes.Load(); n != manyChans {
		r.fail("%d echoes on the %d channels", n, manyChans)
	}
	if len(r.errs) > 0 {
		return errors.Join(r.errs...)
	}
	fmt.Println("ok")
	return nil
}

func runBench(d time.Duration) error {
	const size = 64 << 10
	var received atomic.Int64
	start := make(chan struct{}, 1)
	stop := make(chan struct{})
	setup := func(pc *webrtc.PeerConnection) error {
		dc, err := pc.CreateDataChannel("bench", nil)
		if err != nil {
			return err
		}
		low := lowSignal(dc, 1<<20)
		dc.OnOpen(func() {
			go func() {
				msg := make([]byte, size)
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := dc.Send(msg); err != nil {
						return
					}
					for dc.BufferedAmount() > 2<<20 {
						select {
						case <-low:
						case <-stop:
							return
						}
					}
				}
			}()
		})
		return nil
	}
	onDC := func(dc *webrtc.DataChannel) {
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			if received.Add(int64(len(m.Data))) == int64(len(m.Data)) {
				start <- struct{}{}
			}
		})
	}
	offer, answer, err := peers(setup, onDC)
	if err != nil {
		return err
	}
	defer offer.Close()
	defer answer.Close()
	select {
	case <-start:
	case <-time.After(30 * time.Second):
		return errors.New("no data in 30 s")
	}
	t0, b0 := time.Now(), received.Load()
	time.Sleep(d)
	b1, el := received.Load(), time.Since(t0)
	close(stop)
	fmt.Printf("throughput: %.1f MB/s (%d bytes in %v)\n", float64(b1-b0)/el.Seconds()/1e6, b1-b0, el.Round(time.Millisecond))
	return nil
}

// lowSignal sets dc's buffered-amount low threshold and returns a channel
// that OnBufferedAmountLow signals (a signal not yet taken is kept, and
// the next ones merge with it).
func lowSignal(dc *webrtc.DataChannel, threshold uint64) <-chan struct{} {
	low := make(chan struct{}, 1)
	dc.SetBufferedAmountLowThreshold(threshold)
	dc.OnBufferedAmountLow(func() {
		select {
		case low <- struct{}{}:
		default:
		}
	})
	return low
}
