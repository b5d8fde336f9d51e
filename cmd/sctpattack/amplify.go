package main

import (
	"fmt"
	"io"
	"time"

	"github.com/usctp/usctp/sctp/chunk"
)

// amplification is one trigger and what the target answered.
type amplification struct {
	what         string
	sent, answer int // bytes of SCTP packet
	answers      int // packets
}

// amplify sends single packets that the target answers without an
// association, or with one the sender opened at no cost, and reports the
// size of each answer: what a reflection attack with a forged source
// address would get out of the target. Sizes are SCTP packets (the UDP
// payload; IP and UDP headers add 28 bytes each way over IPv4).
func amplify(o *options, w io.Writer) error {
	p, err := newPeer(o.udpTarget(), o.target.Port(), o.seed)
	if err != nil {
		return err
	}
	defer p.Close()
	var rows []amplification
	probe := func(what string, pkt []byte) {
		p.drain()
		p.sent, p.received = counter{}, counter{}
		if err := p.send(pkt); err != nil {
			rows = append(rows, amplification{what: what + ": " + err.Error()})
			return
		}
		for {
			pkt := p.recv(300 * time.Millisecond)
			if pkt == nil {
				break
			}
			if _, ok := find(pkt, chunk.TypePad); ok {
				// The target's path MTU probe (RFC 8899: a HEARTBEAT
				// padded with PAD), sent on its own timer once an
				// association is up: no answer to the trigger.
				p.received.packets--
				p.received.bytes -= int64(len(pkt))
			}
		}
		rows = append(rows, amplification{what, int(p.sent.bytes), int(p.received.bytes), int(p.received.packets)})
	}
	probe("INIT, no parameters", p.appendInit(p.header(0), 10, nil))
	probe("INIT announcing PR-SCTP and RE-CONFIG", p.appendInit(p.header(0), 10, initParams()))
	for _, n := range []int{400, 1000} {
		unknown, _ := chunk.AppendParam(nil, chunk.ParamType(0xC0FF), make([]byte, n)) // skip and report
		probe(fmt.Sprintf("INIT with a %d-byte unknown parameter (skip, report)", n+4), p.appendInit(p.header(0), 10, unknown))
	}
	probe("DATA out of the blue (no association)", p.data(p.header(0x1234), 0, 0, chunk.FlagBeginning|chunk.FlagEnd, []byte("x")))
	probe("SHUTDOWN ACK out of the blue", chunk.AppendEmpty(p.header(0x1234), chunk.TypeShutdownAck, 0))
	if err := p.handshake(10); err != nil {
		return err
	}
	b, _ := chunk.AppendCookieEcho(p.header(p.peerTag), p.cookie)
	probe("COOKIE ECHO of an open association (replayed)", b)
	for _, n := range []int{8, 1000} {
		hb, _ := chunk.AppendParam(nil, chunk.ParamHeartbeatInfo, make([]byte, n))
		b, _ = chunk.AppendHeartbeat(p.header(p.peerTag), false, hb)
		probe(fmt.Sprintf("HEARTBEAT with %d bytes of information", n), b)
	}
	p.abort()
	fmt.Fprintf(w, "%-56s %6s %7s %8s\n", "trigger", "sent", "answer", "factor")
	for _, r := range rows {
		f := 0.0
		if r.sent > 0 {
			f = float64(r.answer) / float64(r.sent)
		}
		fmt.Fprintf(w, "%-56s %6d %7d %7.2fx\n", r.what, r.sent, r.answer, f)
	}
	return nil
}
