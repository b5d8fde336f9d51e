//go:build linux

package crc32c

import (
	"math/rand/v2"
	"syscall"
	"testing"
)

// TestGuardPages places inputs right after and right before pages that
// cannot be read: the vector code's first block reaches up to 255 bytes
// in front of p with those bytes masked off, and must neither read them
// nor fault, and nothing may read past the end (UpdateCopy's source
// neither).
func TestGuardPages(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(mem)
	r := rand.New(rand.NewPCG(9, 10))
	for i := page; i < 2*page; i++ {
		mem[i] = byte(r.Uint32())
	}
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if err := syscall.Mprotect(mem[2*page:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	mid := mem[page : 2*page]
	dst := make([]byte, page)
	for _, impl := range implementations(t) {
		impl.use()
		for n := 0; n <= min(len(mid), 1600); n++ {
			for _, p := range [][]byte{mid[:n], mid[len(mid)-n:]} {
				if got, w := Checksum(p), want(0, p); got != w {
					t.Fatalf("%s: Checksum of %d bytes = %#08x, want %#08x", impl.name, n, got, w)
				}
				if got, w := UpdateCopy(0, dst, p), want(0, p); got != w {
					t.Fatalf("%s: UpdateCopy of %d bytes = %#08x, want %#08x", impl.name, n, got, w)
				}
			}
		}
	}
}
