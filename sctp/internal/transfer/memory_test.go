package transfer

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestEngineFootprint measures an idle engine with 65535 streams each
// way: stream state is created on first use, so it stays small.
func TestEngineFootprint(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation sizes differ under -race")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e, err := New(Config{OutStreams: 65535, InStreams: 65535})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	idle := after.TotalAlloc - before.TotalAlloc
	for sid := range uint16(10) {
		e.Send.Queue(sid, 0, false, []byte{1})
	}
	runtime.ReadMemStats(&before)
	used := before.TotalAlloc - after.TotalAlloc
	for sid := range uint16(10) {
		e.Send.Queue(10+sid*6000, 0, false, []byte{1})
	}
	runtime.ReadMemStats(&after)
	spread := after.TotalAlloc - before.TotalAlloc
	t.Logf("idle engine, 65535 streams each way: %d bytes; streams 0-9 used: +%d bytes; 10 more spread over the id space: +%d bytes; retransmission record %d bytes",
		idle, used, spread, unsafe.Sizeof(record{}))
	if idle > 32<<10 {
		t.Errorf("idle engine takes %d bytes, want under 32 KiB", idle)
	}
	runtime.KeepAlive(e)
}
