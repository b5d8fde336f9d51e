package kerneltest

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/usctp/usctp/sctp"
)

// bulkBytes is the size of each bulk transfer. Under TCG the guest kernel moves a few
// MB/s, so the default (16 MiB) keeps the kernel suite within its time budget;
// USCTP_KERNEL_BULK_MB asks for more (100 for a full run).
func bulkBytes() int {
	if s := os.Getenv("USCTP_KERNEL_BULK_MB"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n << 20
		}
	}
	return defaultBulkMB << 20
}

const (
	defaultBulkMB = 16
	bulkMsg       = 64 << 10
)

// TestKernelBulk moves bulkBytes each way, byte-exact: usctp to kpeer's sink (which
// reports the CRC32 of every byte in arrival order) and kpeer's source to usctp (which
// checks every message against the source's pattern), over both transports, usctp as
// client and as server.
func TestKernelBulk(t *testing.T) {
	batchPcaps(t)
	total := bulkBytes()
	count := total / bulkMsg
	for _, dir := range []string{"to-kernel", "from-kernel"} {
		t.Run(dir, func(t *testing.T) {
			forEach(t, transports, func(t *testing.T, tr, role string) {
				kopts := "mode=sink log=0 buf=4194304"
				if dir == "from-kernel" {
					kopts = fmt.Sprintf("mode=source log=0 buf=4194304 count=%d size=%d ppid=%d then=close", count, bulkMsg, ppidBase)
				}
				p := newPair(t, setup{tr: tr, role: role, kopts: kopts, timeout: 5 * time.Minute})
				start := time.Now()
				if dir == "to-kernel" {
					msg := make([]byte, bulkMsg)
					var crc uint32
					for i := range count {
						payload(msg, i)
						crc = crc32.Update(crc, crc32.IEEETable, msg)
						p.write(msg, sctp.SendInfo{PPID: ppidBase})
					}
					if err := p.as.Shutdown(p.ctx); err != nil {
						p.failf("usctp Shutdown after %d bytes: %v", total, err)
					}
					l := p.wait("DONE", nil)
					if l.Int("msgs") != count || l.Int("bytes") != total || l.Get("crc") != fmt.Sprintf("%08x", crc) || l.Get("end") != "eof" {
						p.failf("kernel: %s; want msgs=%d bytes=%d crc=%08x end=eof", l, count, total, crc)
					}
				} else {
					buf := make([]byte, 2*bulkMsg)
					want := make([]byte, bulkMsg)
					n := 0
					for ; ; n++ {
						got, info, err := p.readMsg(buf)
						if err == io.EOF {
							break
						}
						if err != nil {
							p.failf("usctp ReadMsg after %d messages: %v", n, err)
						}
						if n >= count || info.PPID != ppidBase || info.Stream != 0 || !bytes.Equal(got, payload(want, n)) {
							p.failf("usctp message %d: stream %d PPID %d %d bytes (crc %s); want stream 0 PPID %d %d bytes (crc %s) of %d",
								n, info.Stream, info.PPID, len(got), crcHex(got), ppidBase, bulkMsg, crcHex(want), count)
						}
					}
					if n != count {
						p.failf("usctp got %d messages before EOF, want %d", n, count)
					}
				}
				d := time.Since(start)
				t.Logf("%d MB %s in %v: %.1f MB/s; %s", total>>20, dir, d.Round(time.Millisecond), float64(total)/d.Seconds()/1e6, statsLine(p.as.Stats()))
			})
		})
	}
}
