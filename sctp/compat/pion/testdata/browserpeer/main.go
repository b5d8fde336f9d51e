// Command browserpeer is a pion/webrtc v4 program, written against
// pion/webrtc's API only, that talks data channels with a browser: it
// serves page.html and the signalling on a loopback HTTP server, offers a
// PeerConnection to the page (its candidates gathered), takes the page's
// answer and trickled candidates, and runs the
// scenarios both ways (browser to pion, pion to browser), each side
// checking every byte it receives and reporting to the HTTP server. The
// pion replace module's tests build it unchanged over pion/sctp and over
// usctp and point a headless browser at it.
//
// It prints "url URL" once it listens, then one line "check NAME ok|FAIL
// DETAIL" per check as it completes, and at the end "ok", or "FAIL: ..."
// and exits 1. With -bench it sends 64 KiB messages to the page paced by
// the buffered amount, the page counts what it receives for that long,
// and it prints "throughput: X MB/s".
package main

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pion/webrtc/v4"
)

//go:embed page.html
var page []byte

// The scenarios; each runs both ways, "b2u" (browser to this program) and
// "u2b" (this program to the browser).
const (
	reliableBytes = 16 << 20 // ordered, reliable
	unorderedMsgs = 200      // unordered, maxRetransmits 0 and maxPacketLifeTime
	unorderedSize = 1000
	lifetimeMs    = 3000
	manyChannels  = 256
	// maxSizeCap bounds the max-size message when the browser's
	// max-message-size is larger: Firefox says 1 GiB, but its usrsctp
	// keeps a message it reassembles in its 16 MiB receive buffer, so a
	// message near that size, with other channels' data beside it,
	// fills the buffer and stalls. 8 MiB is half that buffer and eight
	// times usctp's receive window here, so usctp receives it in parts.
	maxSizeCap = 8 << 20
)

// tags seed the pattern of each scenario's messages (plus 16 for b2u).
var tags = map[string]uint32{"reliable": 1, "rexmit0": 2, "lifetime": 3, "maxsize": 4, "channels256": 5, "close": 6}

var scenarios = []string{"reliable", "rexmit0", "lifetime", "maxsize", "channels256", "close"}

func tag(scenario, dir string) uint32 {
	t := tags[scenario]
	if dir == "b2u" {
		t += 16
	}
	return t
}

// message returns message k of n bytes (n >= 8) of the stream tagged tag:
// k and n little-endian, then xorshift32 words seeded from tag and k. The
// page makes the same bytes.
func message(tag uint32, k, n int) []byte {
	words := (n + 3) / 4
	b := make([]byte, words*4)
	x := tag*0x9E3779B1 ^ uint32(k+1)*0x85EBCA77
	if x == 0 {
		x = 1
	}
	for i := range words {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	binary.LittleEndian.PutUint32(b, uint32(k))
	binary.LittleEndian.PutUint32(b[4:], uint32(n))
	return b[:n]
}

// checkMessage returns k if m is message k of stream tag, else an error.
func checkMessage(tag uint32, m []byte) (int, error) {
	if len(m) < 8 {
		return 0, fmt.Errorf("a message of %d bytes", len(m))
	}
	k, n := int(binary.LittleEndian.Uint32(m)), int(binary.LittleEndian.Uint32(m[4:]))
	if n != len(m) {
		return k, fmt.Errorf("message %d: %d bytes, its header says %d", k, len(m), n)
	}
	want := message(tag, k, n)
	if i := firstDiff(m, want); i >= 0 {
		return k, fmt.Errorf("message %d (%d bytes) differs from byte %d", k, n, i)
	}
	return k, nil
}

func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// reliableSize is the size of message k of the reliable transfer; the
// last one is cut to make reliableBytes in all.
func reliableSize(k int) int {
	if k%16 == 0 {
		return 64 << 10
	}
	return 8 + (k*7919)%(64<<10)
}

// report is one check's outcome, from either side.
type report struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// peer is the program's state.
type peer struct {
	pc        *webrtc.PeerConnection
	offer     []byte
	answer    chan webrtc.SessionDescription
	answered  chan struct{} // closed once the answer is set
	mu        sync.Mutex
	reports   map[string]report
	want      []string // the checks that must report
	done      chan struct{}
	bench     time.Duration
	benchRate chan string
	maxSize   int // the max-size message, both ways
	browserMM int // the browser's max-message-size, from its answer

	closeU2B, closeB2U []string // the close scenario's channels seen closed
	many256            int      // channels256/b2u channels closed

	heard map[string]chan struct{} // closed when the page has a message of the channel so labelled
}

// heardOn returns the channel closed once the page says it has received a
// message on the data channel labelled label; hear closes it.
func (p *peer) heardOn(label string, hear bool) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.heard[label]
	if !ok {
		c = make(chan struct{})
		p.heard[label] = c
	}
	if hear {
		select {
		case <-c:
		default:
			close(c)
		}
	}
	return c
}

// closeWhenHeard closes dc, which this side opened and sent on, once the
// page has received a message on it.
//
// Chromium loses what arrives on a channel its peer opened if the
// channel's close arrives before the page's RTCDataChannel has registered
// for its messages (Blink registers in a task of its own, after the
// datachannel event, so that the channel can be transferred to a worker;
// messages queued before that are dropped once the channel is closing).
// Chromium acknowledges the DATA and performs the reset; the page is
// never given the messages (docs/webrtc.md, "Browsers"). Closing once the page has a message keeps what is tested (the messages
// before the close, then the close) and leaves that race out.
func (p *peer) closeWhenHeard(dc *webrtc.DataChannel) error {
	select {
	case <-p.heardOn(dc.Label(), false):
	case <-time.After(30 * time.Second):
		return fmt.Errorf("the page received no message on %s in 30 s", dc.Label())
	}
	return dc.Close()
}

func main() {
	bench := flag.Duration("bench", 0, "send to the page for this long and print the throughput it saw")
	timeout := flag.Duration("timeout", 150*time.Second, "give up after this long")
	flag.Parse()
	if err := run(*bench, *timeout); err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
}

func run(bench, timeout time.Duration) error {
	p := &peer{
		answer:    make(chan webrtc.SessionDescription, 1),
		answered:  make(chan struct{}),
		reports:   map[string]report{},
		heard:     map[string]chan struct{}{},
		done:      make(chan struct{}),
		bench:     bench,
		benchRate: make(chan string, 1),
	}
	if bench == 0 {
		for _, s := range scenarios {
			for _, dir := range []string{"b2u", "u2b"} {
				p.want = append(p.want, s+"/"+dir+"/recv", s+"/"+dir+"/send")
			}
		}
	}
	var se webrtc.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetInterfaceFilter(func(name string) bool { return name == "lo" })
	se.EnableSCTPZeroChecksum(true)
	api := webrtc.NewAPI(webrtc.WithSettingEngine(se))
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return err
	}
	defer pc.Close()
	p.pc = pc
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		fmt.Fprintln(os.Stderr, "peer connection:", s)
	})
	pc.OnDataChannel(p.onDataChannel)
	if err := p.createChannels(); err != nil {
		return err
	}
	o, err := pc.CreateOffer(nil)
	if err != nil {
		return err
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(o); err != nil {
		return err
	}
	<-gathered
	if p.offer, err = json.Marshal(map[string]any{
		"sdp":   pc.LocalDescription(),
		"bench": bench.Milliseconds(),
	}); err != nil {
		return err
	}

	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: p}
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Printf("url http://%s/\n", ln.Addr())

	deadline := time.After(timeout)
	select {
	case a := <-p.answer:
		if err := pc.SetRemoteDescription(a); err != nil {
			return fmt.Errorf("the page's answer: %w", err)
		}
		close(p.answered)
	case <-deadline:
		return errors.New("no answer from the page")
	}
	if bench > 0 {
		select {
		case r := <-p.benchRate:
			fmt.Println(r)
			return nil
		case <-deadline:
			return errors.New("the page reported no throughput")
		}
	}
	select {
	case <-p.done:
	case <-deadline:
		p.mu.Lock()
		var missing []string
		for _, w := range p.want {
			if _, ok := p.reports[w]; !ok {
				missing = append(missing, w)
			}
		}
		p.mu.Unlock()
		printStats(pc)
		return fmt.Errorf("timed out waiting for %s", strings.Join(missing, ", "))
	}
	if md, ok := pc.SCTP().Metadata(); ok {
		fmt.Printf("sctp zero checksum: send %v receive %v\n", md.ZeroChecksumSendingEnabled, md.ZeroChecksumReceivingEnabled)
	}
	var failed []string
	for _, w := range p.want {
		if r := p.reports[w]; !r.OK {
			failed = append(failed, w)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s", strings.Join(failed, ", "))
	}
	fmt.Println("ok")
	return nil
}

var maxMessageSize = regexp.MustCompile(`(?m)^a=max-message-size:(\d+)`)

// ServeHTTP serves the page and the signalling.
func (p *peer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html")
		w.Write(page)
	case "/offer":
		w.Header().Set("Content-Type", "application/json")
		w.Write(p.offer)
	case "/answer":
		var a webrtc.SessionDescription
		if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if m := maxMessageSize.FindStringSubmatch(a.SDP); m != nil {
			p.browserMM, _ = strconv.Atoi(m[1])
		}
		p.maxSize = min(p.browserMM, maxSizeCap)
		fmt.Printf("browser max-message-size %d: max-size messages of %d bytes\n", p.browserMM, p.maxSize)
		p.answer <- a
	case "/candidate":
		var c webrtc.ICECandidateInit
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		<-p.answered
		if err := p.pc.AddICECandidate(c); err != nil {
			fmt.Fprintf(os.Stderr, "the page's candidate %q: %v\n", c.Candidate, err)
		}
	case "/report":
		var rep report
		if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if rep.Name == "bench" {
			p.benchRate <- rep.Detail
			return
		}
		p.report(rep.Name, rep.OK, "browser: "+rep.Detail)
	case "/heard":
		var label string
		if err := json.NewDecoder(r.Body).Decode(&label); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.heardOn(label, true)
	case "/log":
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(os.Stderr, "page: %s\n", b)
	default:
		http.NotFound(w, r)
	}
}

// report records a check's outcome (the first one of each name).
func (p *peer) report(name string, ok bool, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, dup := p.reports[name]; dup {
		fmt.Printf("check %s FAIL reported twice: %s\n", name, detail)
		p.reports[name] = report{Name: name, Detail: "reported twice"}
		return
	}
	p.reports[name] = report{Name: name, OK: ok, Detail: detail}
	state := "ok"
	if !ok {
		state = "FAIL"
	}
	fmt.Printf("check %s %s %s\n", name, state, detail)
	for _, w := range p.want {
		if _, ok := p.reports[w]; !ok {
			return
		}
	}
	close(p.done)
}

func (p *peer) fail(name, format string, args ...any) {
	p.report(name, false, fmt.Sprintf(format, args...))
}

// createChannels creates this side's channels before the offer: the
// control channel (which puts the application section in the offer) and
// the u2b scenarios' channels, which open once SCTP is up.
func (p *peer) createChannels() error {
	if _, err := p.pc.CreateDataChannel("control", nil); err != nil {
		return err
	}
	if p.bench > 0 {
		dc, err := p.pc.CreateDataChannel("bench", nil)
		if err != nil {
			return err
		}
		dc.OnOpen(func() { go p.sendPaced(dc, "bench", func(int) []byte { return make([]byte, 64<<10) }, -1) })
		return nil
	}
	no := false
	zero, life := uint16(0), uint16(lifetimeMs)
	mk := func(label string, init *webrtc.DataChannelInit) (*webrtc.DataChannel, error) {
		return p.pc.CreateDataChannel(label, init)
	}
	// The bulk transfers (reliable, maxsize) start once the partially
	// reliable channels' messages are sent, so that those do not wait
	// behind megabytes and expire before they are first sent.
	var prSent sync.WaitGroup
	prSent.Add(2)
	// Reliable ordered.
	rel, err := mk("reliable/u2b", nil)
	if err != nil {
		return err
	}
	rel.OnOpen(func() {
		go func() {
			prSent.Wait()
			p.sendPaced(rel, "reliable/u2b/send", func(k int) []byte {
				return message(tag("reliable", "u2b"), k, reliableSize(k))
			}, reliableBytes)
		}()
	})
	// Unordered, partially reliable: the messages, then the close that
	// tells the page they are all sent (once the page has one of them:
	// closeWhenHeard).
	for _, c := range []struct {
		name string
		init *webrtc.DataChannelInit
	}{
		{"rexmit0", &webrtc.DataChannelInit{Ordered: &no, MaxRetransmits: &zero}},
		{"lifetime", &webrtc.DataChannelInit{Ordered: &no, MaxPacketLifeTime: &life}},
	} {
		dc, err := mk(c.name+"/u2b", c.init)
		if err != nil {
			return err
		}
		dc.OnOpen(func() {
			sent := sync.OnceFunc(prSent.Done)
			defer sent()
			for k := range unorderedMsgs {
				if err := dc.Send(message(tag(c.name, "u2b"), k, unorderedSize)); err != nil {
					p.fail(c.name+"/u2b/send", "Send %d: %v", k, err)
					return
				}
			}
			sent()
			if err := p.closeWhenHeard(dc); err != nil {
				p.fail(c.name+"/u2b/send", "Close: %v", err)
				return
			}
			p.report(c.name+"/u2b/send", true, fmt.Sprintf("%d messages sent, channel closed", unorderedMsgs))
		})
	}
	// One message of the largest size.
	big, err := mk("maxsize/u2b", nil)
	if err != nil {
		return err
	}
	big.OnOpen(func() {
		go func() {
			prSent.Wait()
			m := message(tag("maxsize", "u2b"), 0, p.maxSize)
			if err := big.Send(m); err != nil {
				p.fail("maxsize/u2b/send", "Send of %d bytes: %v", len(m), err)
				return
			}
			p.report("maxsize/u2b/send", true, fmt.Sprintf("%d bytes sent", len(m)))
		}()
	})
	// 256 channels, each carrying one message; the page closes each.
	var closedMu sync.Mutex
	closed := 0
	for i := range manyChannels {
		dc, err := mk(fmt.Sprintf("channels256/u2b/%d", i), nil)
		if err != nil {
			return err
		}
		dc.OnOpen(func() {
			if err := dc.Send(message(tag("channels256", "u2b"), i, 100+i)); err != nil {
				p.fail("channels256/u2b/send", "channel %d: Send: %v", i, err)
			}
		})
		dc.OnClose(func() {
			closedMu.Lock()
			closed++
			n := closed
			closedMu.Unlock()
			if n == manyChannels {
				p.report("channels256/u2b/send", true, fmt.Sprintf("%d channels opened, used and closed by the page", n))
			}
		})
	}
	// This side closes a channel it opened after a message (once the
	// page has it: closeWhenHeard); the page opens "close/u2b/peer",
	// which this side closes (onDataChannel).
	own, err := mk("close/u2b/own", nil)
	if err != nil {
		return err
	}
	own.OnOpen(func() {
		if err := own.Send(message(tag("close", "u2b"), 0, 64)); err != nil {
			p.fail("close/u2b/send", "Send: %v", err)
			return
		}
		if err := p.closeWhenHeard(own); err != nil {
			p.fail("close/u2b/send", "Close: %v", err)
		}
	})
	own.OnClose(func() { p.closeSeen("own") })
	return nil
}

// closeSeen counts the close/u2b channels this side saw closed.
func (p *peer) closeSeen(which string) {
	p.mu.Lock()
	p.closeU2B = append(p.closeU2B, which)
	n := len(p.closeU2B)
	p.mu.Unlock()
	if n == 2 {
		p.report("close/u2b/send", true, "both channels this side closed (its own and the page's) closed")
	}
}

// sendPaced sends next(0), next(1), ... until total bytes (-1: until the
// page reports), keeping the buffered amount under 4 MiB with
// OnBufferedAmountLow at 1 MiB; the last message is sized to make total
// (and at least 8 bytes).
func (p *peer) sendPaced(dc *webrtc.DataChannel, name string, next func(int) []byte, total int) {
	low := make(chan struct{}, 1)
	dc.SetBufferedAmountLowThreshold(1 << 20)
	dc.OnBufferedAmountLow(func() {
		select {
		case low <- struct{}{}:
		default:
		}
	})
	sent := 0
	for k := 0; total < 0 || sent < total; k++ {
		m := next(k)
		if total >= 0 && sent+len(m) > total-8 {
			m = message(tag("reliable", "u2b"), k, total-sent)
		}
		if err := dc.Send(m); err != nil {
			if total < 0 {
				return // the page went away
			}
			p.fail(name, "Send %d: %v", k, err)
			return
		}
		sent += len(m)
		for dc.BufferedAmount() > 4<<20 {
			select {
			case <-low:
			case <-time.After(30 * time.Second):
				p.fail(name, "no OnBufferedAmountLow in 30 s with %d bytes buffered", dc.BufferedAmount())
				return
			}
		}
	}
	p.report(name, true, fmt.Sprintf("%d bytes sent", sent))
}

// onDataChannel handles the page's channels: it checks what arrives on
// the b2u scenarios' channels.
func (p *peer) onDataChannel(dc *webrtc.DataChannel) {
	label := dc.Label()
	scenario, rest, _ := strings.Cut(label, "/")
	dir, sub, _ := strings.Cut(rest, "/")
	name := scenario + "/" + dir + "/recv"
	t := tag(scenario, dir)
	switch {
	case label == "close/u2b/peer":
		// The page's channel, which this side closes after its message.
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			if _, err := checkMessage(tag("close", "u2b"), m.Data); err != nil {
				p.fail("close/u2b/send", "%s: %v", label, err)
			}
			if err := dc.Close(); err != nil {
				p.fail("close/u2b/send", "Close %s: %v", label, err)
			}
		})
		dc.OnClose(func() { p.closeSeen("peer") })
	case scenario == "reliable":
		next, got := 0, 0
		failed := false
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			if failed {
				return
			}
			k, err := checkMessage(t, m.Data)
			switch {
			case err != nil:
				p.fail(name, "%v", err)
				failed = true
				return
			case k != next:
				p.fail(name, "message %d where %d was due", k, next)
				failed = true
				return
			}
			next++
			got += len(m.Data)
			if got == reliableBytes {
				p.report(name, true, fmt.Sprintf("%d bytes in %d messages, in order, every byte checked", got, next))
			} else if got > reliableBytes {
				p.fail(name, "%d bytes, more than %d", got, reliableBytes)
				failed = true
			}
		})
	case scenario == "rexmit0" || scenario == "lifetime":
		seen := map[int]bool{}
		var errs []string
		wantRexmit, wantLife := dc.MaxRetransmits(), dc.MaxPacketLifeTime()
		if dc.Ordered() {
			errs = append(errs, "the channel is ordered")
		}
		if scenario == "rexmit0" && (wantRexmit == nil || *wantRexmit != 0 || wantLife != nil) {
			errs = append(errs, fmt.Sprintf("maxRetransmits %v maxPacketLifeTime %v, want 0 and none", wantRexmit, wantLife))
		}
		if scenario == "lifetime" && (wantLife == nil || *wantLife != lifetimeMs || wantRexmit != nil) {
			errs = append(errs, fmt.Sprintf("maxRetransmits %v maxPacketLifeTime %v, want none and %d", wantRexmit, wantLife, lifetimeMs))
		}
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			k, err := checkMessage(t, m.Data)
			switch {
			case err != nil:
				errs = append(errs, err.Error())
			case k >= unorderedMsgs || len(m.Data) != unorderedSize:
				errs = append(errs, fmt.Sprintf("message %d of %d bytes", k, len(m.Data)))
			case seen[k]:
				errs = append(errs, fmt.Sprintf("message %d twice", k))
			}
			seen[k] = true
		})
		dc.OnClose(func() {
			if len(seen) == 0 {
				errs = append(errs, "no message before the close")
			}
			if len(errs) > 0 {
				p.fail(name, "%s", strings.Join(first(errs, 5), "; "))
				return
			}
			p.report(name, true, fmt.Sprintf("%d of %d messages, intact, no duplicate, then the close", len(seen), unorderedMsgs))
		})
	case scenario == "maxsize":
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			_, err := checkMessage(t, m.Data)
			switch {
			case err != nil:
				p.fail(name, "%v", err)
			case len(m.Data) != p.maxSize:
				p.fail(name, "%d bytes, want %d", len(m.Data), p.maxSize)
			default:
				p.report(name, true, fmt.Sprintf("one message of %d bytes (browser's max-message-size %d), every byte checked", len(m.Data), p.browserMM))
			}
		})
	case scenario == "channels256":
		i, _ := strconv.Atoi(sub)
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			k, err := checkMessage(t, m.Data)
			if err == nil && (k != i || len(m.Data) != 100+i) {
				err = fmt.Errorf("message %d of %d bytes on %s", k, len(m.Data), label)
			}
			if err != nil {
				p.fail(name, "%v", err)
				return
			}
			dc.Close()
		})
		dc.OnClose(func() {
			p.mu.Lock()
			p.many256++
			n := p.many256
			p.mu.Unlock()
			if n == manyChannels {
				p.report(name, true, fmt.Sprintf("%d channels, each message checked, each closed by this side", n))
			}
		})
	case scenario == "close" && dir == "b2u":
		// The page closes both: its own after a message, and this
		// side's "close/b2u/peer" (opened here, once its own is open).
		var got bool
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			if _, err := checkMessage(t, m.Data); err != nil {
				p.fail(name, "%v", err)
			}
			got = true
		})
		dc.OnClose(func() {
			if !got {
				p.fail(name, "%s closed without its message", label)
				return
			}
			p.closeB2USeen("own")
		})
		peerDC, err := p.pc.CreateDataChannel("close/b2u/peer", nil)
		if err != nil {
			p.fail(name, "CreateDataChannel: %v", err)
			return
		}
		peerDC.OnOpen(func() {
			if err := peerDC.Send(message(t, 1, 64)); err != nil {
				p.fail(name, "Send: %v", err)
			}
		})
		peerDC.OnClose(func() { p.closeB2USeen("peer") })
	case label == "control":
	default:
		p.fail("unexpected", "a channel labelled %q", label)
	}
}

// closeB2USeen counts the close/b2u channels the page closed.
func (p *peer) closeB2USeen(which string) {
	p.mu.Lock()
	p.closeB2U = append(p.closeB2U, which)
	n := len(p.closeB2U)
	p.mu.Unlock()
	if n == 2 {
		p.report("close/b2u/recv", true, "the page's own channel (after its message) and this side's channel closed by the page")
	}
}

func first(s []string, n int) []string { return s[:min(n, len(s))] }

// printStats prints the SCTP association's counters and those of the data
// channels still open or closing (RTCPeerConnection.getStats on this side;
// channels256's are counted, not listed) for a check that timed out: a
// closed window, data that never arrived and data unread tell apart.
func printStats(pc *webrtc.PeerConnection) {
	st := pc.SCTP().Stats()
	fmt.Printf("stats sctp: bytes sent %d received %d, srtt %.1f ms, cwnd %d, peer's window %d, mtu %d\n",
		st.BytesSent, st.BytesReceived, st.SmoothedRoundTripTime*1000, st.CongestionWindow, st.ReceiverWindow, st.MTU)
	var lines []string
	many := 0
	for _, s := range pc.GetStats() {
		c, ok := s.(webrtc.DataChannelStats)
		if !ok || c.State == webrtc.DataChannelStateClosed {
			continue
		}
		if strings.HasPrefix(c.Label, "channels256/") {
			many++
			continue
		}
		lines = append(lines, fmt.Sprintf("stats channel %q (id %d, %s): messages sent %d received %d, bytes sent %d received %d",
			c.Label, c.DataChannelIdentifier, c.State, c.MessagesSent, c.MessagesReceived, c.BytesSent, c.BytesReceived))
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	fmt.Printf("stats channels256: %d not closed\n", many)
}
