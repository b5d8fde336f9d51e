package main

import (
	"bufio"
	"io"
	"testing"

	"github.com/google/gopacket/layers"
)

// FuzzFrame feeds arbitrary frames through the link, IP and UDP decoders
// and the chunk printer, for every link type: nothing panics.
func FuzzFrame(f *testing.F) {
	for _, fr := range testFrames() {
		f.Add(fr)
		f.Add(fr[14:]) // as raw IP
	}
	frames, _ := captureFrames(f)
	for _, fr := range frames {
		f.Add(fr)
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		rule := udpRule{ports: []int{9899}, detect: true}
		d := dumper{cfg: config{udp: rule}, out: bufio.NewWriter(io.Discard)}
		for _, lt := range []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, linkTypeSLL2,
			layers.LinkTypeRaw, layers.LinkTypeNull} {
			if p, kind := sctpPayload(frame, lt, rule); kind != notSCTP {
				d.packet(p)
			}
		}
		d.cfg.noChecksum = true
		d.packet(frame)
	})
}
