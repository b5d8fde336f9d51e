package sched

import (
	"fmt"
	"testing"

	"github.com/usctp/usctp/internal/testsupport"
)

// BenchmarkChunk measures Next and Sent for one chunk (I-DATA, so every
// scheduler may switch streams after every chunk) with 1, 1000 and 65535
// saturated streams; PacketDone after each chunk makes RR per packet rotate.
// WFQ streams have weights 1 to 4 and priorities spread over 8 levels.
func BenchmarkChunk(b *testing.B) {
	for _, k := range allKinds {
		for _, n := range []int{1, 1000, 65535} {
			b.Run(fmt.Sprintf("%v/streams=%d", k, n), func(b *testing.B) {
				s, _ := New(k, Options{Interleaved: true, Streams: n})
				for sid := range uint16(n) {
					s.SetValue(sid, 1+sid%4)
					s.Enqueue(sid, 1<<20)
				}
				b.ReportAllocs()
				c0 := testsupport.CPUTime()
				for b.Loop() {
					sid, _ := s.Next()
					s.Sent(sid, 1200, false, false)
					s.PacketDone()
				}
				testsupport.ReportCPU(b, c0)
			})
		}
	}
}

// BenchmarkMessage measures a whole message without I-DATA: Next, Sent of
// its only chunk (message end) and Enqueue of a new message on that stream,
// with 1, 1000 and 65535 saturated streams holding two messages each.
func BenchmarkMessage(b *testing.B) {
	for _, k := range allKinds {
		for _, n := range []int{1, 1000, 65535} {
			b.Run(fmt.Sprintf("%v/streams=%d", k, n), func(b *testing.B) {
				s, _ := New(k, Options{Streams: n})
				for sid := range uint16(n) {
					s.SetValue(sid, 1+sid%4)
					s.Enqueue(sid, 1200)
					s.Enqueue(sid, 1200)
				}
				b.ReportAllocs()
				c0 := testsupport.CPUTime()
				for b.Loop() {
					sid, _ := s.Next()
					s.Sent(sid, 1200, true, false)
					s.Enqueue(sid, 1200)
				}
				testsupport.ReportCPU(b, c0)
			})
		}
	}
}
