package flexarray

import "slices"

// The Go allocator's size classes and malloc header (Go 1.22 through 1.26:
// internal/runtime/gc/sizeclasses.go, runtime/mbitmap.go), used by Bytes and
// to size pages and directory nodes to fill their slots. TestAllocSize and
// TestLargestAllocation check them against the runtime's memory profile, so
// a runtime change fails a test rather than miscounting silently.
const (
	// mallocHeader is the header the runtime puts in front of objects that
	// contain pointers and are larger than maxHeaderless bytes.
	mallocHeader  = 8
	maxHeaderless = 512
	maxSmall      = 32768 // larger objects get whole 8 KiB runtime pages
	runtimePage   = 8192
)

var sizeClasses = [...]int{
	8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224,
	240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768,
	896, 1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200,
	3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240,
	10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576,
	27264, 28672, 32768,
}

// headerSize returns the malloc header the runtime adds to an object of n
// bytes.
func headerSize(n int, ptrs bool) int {
	if ptrs && n > maxHeaderless {
		return mallocHeader
	}
	return 0
}

// AllocSize returns the bytes the Go allocator sets aside for one heap
// object of n bytes: its size class, including the 8-byte malloc header of
// objects larger than 512 bytes that contain pointers.
func AllocSize(n int, hasPointers bool) int { return slotSize(n, hasPointers) }

// slotSize returns the bytes the runtime sets aside for one object of n
// bytes: its size class, header included.
func slotSize(n int, ptrs bool) int {
	if n == 0 {
		return 0
	}
	n += headerSize(n, ptrs)
	if n > maxSmall {
		return (n + runtimePage - 1) &^ (runtimePage - 1)
	}
	i, _ := slices.BinarySearch(sizeClasses[:], n)
	return sizeClasses[i]
}

// ptrsInSlot returns how many pointers fit in the slot that c pointers
// occupy.
func ptrsInSlot(c int) int {
	slot := slotSize(c*ptrSize, true)
	return (slot - headerSize(slot, true)) / ptrSize
}
