package kerneltest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/usctp/usctp/sctp"
)

// messageSizes run from one byte to 1 MB: single chunks, the PMTU's edges, and messages
// fragmented into up to ~750 DATA chunks.
var messageSizes = []int{1, 2, 3, 100, 1151, 1152, 1153, 1400, 1500, 4000, 9000, 65535, 65536, 100000, 300000, 1 << 20}

// TestKernelMessages: handshake, then messages from 1 byte to 1 MB on many streams,
// ordered and unordered, each with its own PPID, that kpeer's echo server returns on the
// same stream with the same PPID and ordering flag. Both sides check stream id, PPID,
// flag, length and content (kpeer through its MSG lines' CRC); usctp then shuts down.
// The kernel offers I-DATA and stream reconfiguration, which usctp does not negotiate
// (yet): the association must fall back to DATA chunks.
func TestKernelMessages(t *testing.T) {
	batchPcaps(t)
	forEach(t, transports, func(t *testing.T, tr, role string) {
		p := newPair(t, setup{tr: tr, role: role, kopts: "mode=echo buf=4194304 intl=1 reset=1", cfg: sctp.Config{OutStreams: 1000, InStreams: 1000}})
		out, in := p.as.Streams()
		if out != 1000 || in != 1000 {
			p.failf("usctp streams out=%d in=%d, want 1000 and 1000 (kernel %s)", out, in, p.kline)
		}
		var msgs []message
		for i, size := range messageSizes {
			// Streams spread over the whole range, some used twice (ordered on the
			// same stream must stay in order); every second message unordered.
			sid := uint16((i * 397) % 1000)
			if i%4 == 3 {
				sid = msgs[i-2].sid
			}
			msgs = append(msgs, message{sid, uint32(1000 + i), i%2 == 1, payload(make([]byte, size), i)})
		}
		// Write everything in a goroutine (the kernel echoes while we write), read the
		// echoes here.
		werr := make(chan error, 1)
		go func() {
			for _, m := range msgs {
				if _, err := p.as.WriteMsg(m.data, sctp.SendInfo{Stream: m.sid, PPID: m.ppid, Unordered: m.unordered}); err != nil {
					werr <- fmt.Errorf("WriteMsg %d bytes on stream %d: %w", len(m.data), m.sid, err)
					return
				}
			}
			werr <- nil
		}()
		// The kernel's side: one MSG line per message, in order per stream for the
		// ordered ones.
		kseen := map[string]bool{}
		for range msgs {
			l := p.wait("MSG", nil)
			var w *message
			for i := range msgs {
				m := &msgs[i]
				if int(m.ppid) == l.Int("ppid") {
					w = m
				}
			}
			u := 0
			if w != nil && w.unordered {
				u = 1
			}
			if w == nil || kseen[l.Get("ppid")] || l.Int("sid") != int(w.sid) || l.Int("len") != len(w.data) ||
				l.Int("unordered") != u || l.Get("crc") != crcHex(w.data) {
				p.failf("kernel received %s; want one of the sent messages once, for this PPID: %v", l, w)
			}
			kseen[l.Get("ppid")] = true
		}
		// usctp's side: the echoes.
		buf := make([]byte, 256<<10)
		useen := map[uint32]bool{}
		for range msgs {
			got, info, err := p.readMsg(buf)
			if err != nil {
				p.failf("usctp ReadMsg: %v after %d echoes", err, len(useen))
			}
			idx := int(info.PPID) - 1000
			if idx < 0 || idx >= len(msgs) || useen[info.PPID] {
				p.failf("usctp received %d bytes on stream %d with PPID %d: no such message sent, or twice", len(got), info.Stream, info.PPID)
			}
			w := msgs[idx]
			if info.Stream != w.sid || info.Unordered != w.unordered || !bytes.Equal(got, w.data) {
				p.failf("usctp received stream %d PPID %d unordered=%v %d bytes (crc %s); want %v",
					info.Stream, info.PPID, info.Unordered, len(got), crcHex(got), w)
			}
			useen[info.PPID] = true
		}
		if err := <-werr; err != nil {
			p.failf("%v", err)
		}
		if err := p.as.Shutdown(p.ctx); err != nil {
			p.failf("usctp Shutdown: %v", err)
		}
		if l := p.wait("DONE", nil); l.Int("msgs") != len(msgs) || l.Get("end") != "eof" {
			p.failf("kernel: %s, want msgs=%d end=eof", l, len(msgs))
		}
		if s := p.as.Stats(); s.ChunksIn[0x40] != 0 {
			p.failf("usctp received %d I-DATA chunks without negotiating I-DATA", s.ChunksIn[0x40])
		}
		t.Logf("%d messages (%d..%d bytes) echoed; usctp stats: %s", len(msgs), messageSizes[0], messageSizes[len(messageSizes)-1], statsLine(p.as.Stats()))
	})
}

// message is one message usctp sends.
type message struct {
	sid       uint16
	ppid      uint32
	unordered bool
	data      []byte
}

// String describes the message for failures.
func (m *message) String() string {
	if m == nil {
		return "none"
	}
	return fmt.Sprintf("stream %d PPID %d unordered=%v len %d crc %s", m.sid, m.ppid, m.unordered, len(m.data), crcHex(m.data))
}

func statsLine(s sctp.Stats) string {
	return fmt.Sprintf("packets out=%d in=%d retransmits=%d fast=%d t3=%d srtt=%v malformed=%d violations=%d",
		s.PacketsOut, s.PacketsIn, s.Retransmits, s.FastRetransmit, s.T3Expiries, s.SRTT, s.Malformed, s.Violations)
}
