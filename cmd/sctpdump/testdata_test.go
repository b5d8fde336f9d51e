package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// Real captures (for example from the kernel interop rig) go in testdata as
// *.pcap or *.pcapng. Every one of them must decode without a malformed
// line, and their frames seed FuzzFrame.

func captures(t testing.TB) []string {
	var names []string
	for _, pat := range []string{"testdata/*.pcap", "testdata/*.pcapng"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, m...)
	}
	return names
}

func TestDumpTestdataCaptures(t *testing.T) {
	names := captures(t)
	if len(names) == 0 {
		t.Skip("no captures in testdata")
	}
	for _, name := range names {
		out, stderr, code := runDump(t, "-stats", name)
		if code != 0 {
			t.Errorf("%s: exit %d, stderr %q\n%s", name, code, stderr, out)
		}
	}
}

// captureFrames returns the frames of the testdata captures with their link
// types.
func captureFrames(t testing.TB) (frames [][]byte, links []layers.LinkType) {
	for _, name := range captures(t) {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		var src interface {
			ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
			LinkType() layers.LinkType
		}
		if strings.HasSuffix(name, ".pcapng") {
			src, err = pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
		} else {
			src, err = pcapgo.NewReader(f)
		}
		if err != nil {
			t.Fatal(err)
		}
		for {
			data, _, err := src.ReadPacketData()
			if err != nil {
				break
			}
			frames = append(frames, data)
			links = append(links, src.LinkType())
		}
		f.Close()
	}
	return frames, links
}

// TestDumpLinuxCaptures dumps the kernel packets of the codec's testdata
// (captured by the interop rig) in a LINKTYPE_RAW capture, as the rig
// records them: every one decodes cleanly.
func TestDumpLinuxCaptures(t *testing.T) {
	names, _ := filepath.Glob("../../sctp/chunk/testdata/kernel/*.bin")
	if len(names) == 0 {
		t.Skip("no kernel packets")
	}
	var frames [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, ipv4(132, b))
	}
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	w.WriteFileHeader(65535, layers.LinkTypeRaw)
	for _, f := range frames {
		w.WritePacket(gopacket.CaptureInfo{CaptureLength: len(f), Length: len(f)}, f)
	}
	name := filepath.Join(t.TempDir(), "kernel.pcap")
	os.WriteFile(name, buf.Bytes(), 0o644)
	out, stderr, code := runDump(t, "-stats", name)
	if code != 0 || !strings.Contains(out, "malformed=0") {
		t.Fatalf("exit %d, stderr %q\n%s", code, stderr, out)
	}
	t.Log("\n" + out)
}
