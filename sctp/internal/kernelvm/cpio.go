package kernelvm

import (
	"bufio"
	"fmt"
	"io"
)

// cpioWriter writes a cpio archive in the "newc" (SVR4, no CRC) format, the format the
// Linux kernel unpacks as an initramfs (Documentation/driver-api/early-userspace/
// buffer-format.rst): a 110-byte ASCII header of hexadecimal fields, the NUL-terminated
// name padded to 4 bytes, then the data padded to 4 bytes; a "TRAILER!!!" entry ends it.
type cpioWriter struct {
	w     *bufio.Writer
	n     int64 // bytes written, for the padding
	ino   uint32
	err   error
	names map[string]bool
}

// File mode type bits of the header's mode field.
const (
	cpioDir     = 0o040000
	cpioRegular = 0o100000
	cpioSymlink = 0o120000
)

func newCPIOWriter(w io.Writer) *cpioWriter {
	return &cpioWriter{w: bufio.NewWriterSize(w, 64<<10), ino: 1, names: map[string]bool{}}
}

// dir adds a directory.
func (c *cpioWriter) dir(name string, perm uint32) {
	c.entry(name, cpioDir|perm, nil)
}

// file adds a regular file with the given contents.
func (c *cpioWriter) file(name string, perm uint32, data []byte) {
	c.entry(name, cpioRegular|perm, data)
}

// symlink adds a symbolic link name pointing at target.
func (c *cpioWriter) symlink(name, target string) {
	c.entry(name, cpioSymlink|0o777, []byte(target))
}

func (c *cpioWriter) entry(name string, mode uint32, data []byte) {
	if c.err != nil {
		return
	}
	if c.names[name] {
		c.err = fmt.Errorf("cpio: duplicate entry %q", name)
		return
	}
	c.names[name] = true
	nlink := 1
	if mode&0o170000 == cpioDir {
		nlink = 2
	}
	c.ino++
	// magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor,
	// rdevmajor, rdevminor, namesize (with the NUL), check.
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		c.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(name)+1, 0)
	c.write([]byte(hdr))
	c.write([]byte(name))
	c.write([]byte{0})
	c.pad()
	c.write(data)
	c.pad()
}

func (c *cpioWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
}

func (c *cpioWriter) pad() {
	if r := c.n % 4; r != 0 {
		c.write(make([]byte, 4-r))
	}
}

// close writes the trailer and flushes; it returns the first error met.
func (c *cpioWriter) close() error {
	c.ino = 0
	c.entry("TRAILER!!!", 0, nil)
	if c.err != nil {
		return c.err
	}
	return c.w.Flush()
}
