//go:build linux

package netio

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"
)

// The host group of a UDP address and port (portgroup.go) on Linux: the
// processes' sockets share the port with SO_REUSEPORT, and a socket
// selection program (BPF_PROG_TYPE_SK_REUSEPORT) attached to the group
// hands each datagram to the socket serving its SCTP destination port.
// Two maps, pinned in bpffs per network namespace, address and port so
// that every process of the group uses the same ones, say which:
//
//   - members, a BPF_MAP_TYPE_REUSEPORT_SOCKARRAY: a slot per member
//     socket (the kernel keeps a socket in one slot of one such map, and
//     empties the slot when the socket closes, so a process that exits or
//     dies leaves no socket behind). A joining socket takes the lowest
//     free slot; slot 0's socket is the group's default.
//   - ports, a hash from SCTP port to the member slot serving it and that
//     member's socket cookie (SO_COOKIE). An entry whose slot holds
//     another socket than the one of its cookie is stale (its process died without
//     withdrawing it): a claim takes it over, and a member joining on its
//     slot removes it.
//
// The program looks the SCTP destination port up in ports and selects
// the member socket of its slot; when the port has no live entry, it
// selects the default (a packet nobody serves, answered as the RFC says),
// and while slot 0 is empty the kernel picks a member by its hash of the
// addresses and ports. Joining and leaving are serialized between
// processes by a lock on the pin directory; the last member to leave
// removes the pins.

const (
	pinDir       = bpffsRoot + "/usctp"
	groupMembers = 256 // member slots: processes sharing one address and port
)

// groupProbe caches whether this process may form host groups.
var groupProbe struct {
	once sync.Once
	err  error
}

// groupAvailable returns nil when the process may join host groups: bpffs
// is mounted at /sys/fs/bpf and the process may load BPF programs; else
// an error that says which is missing.
func groupAvailable() error {
	groupProbe.once.Do(func() { groupProbe.err = probeGroup() })
	return groupProbe.err
}

// probeGroup finds out what groupAvailable reports.
func probeGroup() error {
	var st unix.Statfs_t
	if err := unix.Statfs(bpffsRoot, &st); err != nil || st.Type != unix.BPF_FS_MAGIC {
		return fmt.Errorf("%w: bpffs is not mounted at %s (mount -t bpf bpf %s)", errNoGroup, bpffsRoot, bpffsRoot)
	}
	if err := os.Mkdir(pinDir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%w: %v", errNoGroup, err)
	}
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.SkReuseport, License: "Apache-2.0",
		Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, skPass), asm.Return()}})
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return fmt.Errorf("%w: loading a BPF program needs CAP_BPF or CAP_SYS_ADMIN (the kernel said %v)",
				errNoGroup, unwrapErrno(err))
		}
		return fmt.Errorf("%w: loading a BPF program: %v", errNoGroup, err)
	}
	prog.Close()
	return nil
}

// unwrapErrno returns the errno err wraps, without the text around it,
// else err.
func unwrapErrno(err error) error {
	var errno unix.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}

// skPass is the SK_PASS verdict of a socket selection program.
const skPass = 1

// portEntry is the value of the ports map.
type portEntry struct {
	Member uint32 // the member slot
	Pad    uint32
	Cookie uint64 // the member socket's SO_COOKIE
}

// selectProgram returns the socket selection program over the group's
// maps.
//
// A program of this type sees the datagram from its UDP header on (the
// context's data; bpf_skb_load_bytes offsets count from there), so the
// SCTP common header's destination port, its second 16-bit field, is at
// UDP header length + 2.
func selectProgram(members, ports *ebpf.Map) asm.Instructions {
	const (
		portOff = UDPHeaderLen + 2
		keySlot = -4 // u32 key on the stack
		bufSlot = -8 // the port's two bytes as read
	)
	selectMember := asm.Instructions{ // the member socket of the slot at keySlot
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.LoadMapPtr(asm.R2, members.FD()),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, keySlot),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnSkSelectReuseport.Call(),
	}
	prog := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.Mov.Imm(asm.R2, portOff),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, bufSlot),
		asm.Mov.Imm(asm.R4, 2),
		asm.FnSkbLoadBytes.Call(),
		asm.JNE.Imm(asm.R0, 0, "default"),
		asm.LoadMem(asm.R2, asm.RFP, bufSlot, asm.Half),
		asm.HostTo(asm.BE, asm.R2, asm.Half),
		asm.StoreMem(asm.RFP, keySlot, asm.R2, asm.Word),
		asm.LoadMapPtr(asm.R1, ports.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, keySlot),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "default"),
		asm.LoadMem(asm.R2, asm.R0, 0, asm.Word),
		asm.StoreMem(asm.RFP, keySlot, asm.R2, asm.Word),
	}
	prog = append(prog, selectMember...)
	prog = append(prog, asm.JEq.Imm(asm.R0, 0, "pass"))
	prog = append(prog, asm.StoreImm(asm.RFP, keySlot, 0, asm.Word).WithSymbol("default"))
	prog = append(prog, selectMember...)
	prog = append(prog, asm.Mov.Imm(asm.R0, skPass).WithSymbol("pass"), asm.Return())
	return prog
}

// hostGroup is a socket's membership in the host group of its address
// and port.
type hostGroup struct {
	// mu guards the maps against closeMaps: the socket's reader may look
	// a port up (servedElsewhere) while the socket closes.
	mu             sync.RWMutex
	mapsClosed     bool
	members, ports *ebpf.Map
	pin            string // the pins' common prefix
	rc             syscall.RawConn
	slot           uint32 // the socket's member slot
	cookie         uint64 // the socket's SO_COOKIE, which lookups in members return
}

// pinPrefix returns the prefix of the pins of the maps of the group of
// addr in network namespace netns (bpffs refuses dots in names).
func pinPrefix(addr netip.AddrPort, netns uint64) string {
	return filepath.Join(pinDir, fmt.Sprintf("udp_%x_%d_%d", addr.Addr().AsSlice(), addr.Port(), netns))
}

// lockPins takes the lock that serializes joining and leaving groups
// between processes (flock on the pin directory); unlock releases it.
func lockPins() (unlock func(), err error) {
	fd, err := unix.Open(pinDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(fd, unix.LOCK_EX); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return func() { unix.Close(fd) }, nil
}

// pinnedMap opens the map pinned at path, or creates and pins it. Called
// with the pin lock held.
func pinnedMap(path string, spec *ebpf.MapSpec) (*ebpf.Map, error) {
	m, err := ebpf.LoadPinnedMap(path, nil)
	if err == nil {
		if err := spec.Compatible(m); err != nil {
			m.Close()
			return nil, fmt.Errorf("map pinned at %s: %w", path, err)
		}
		return m, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if m, err = ebpf.NewMap(spec); err != nil {
		return nil, err
	}
	if err = m.Pin(path); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// joinGroup makes the socket rc, bound with SO_REUSEPORT to addr in
// network namespace netns, a member of the host group of addr: it opens
// or creates the group's maps, attaches the selection program to the
// group and takes the lowest free member slot.
func joinGroup(rc syscall.RawConn, addr netip.AddrPort, netns uint64) (_ *hostGroup, err error) {
	unlock, err := lockPins()
	if err != nil {
		return nil, err
	}
	defer unlock()
	g := &hostGroup{pin: pinPrefix(addr, netns), rc: rc}
	defer func() {
		if err != nil {
			if g.members != nil && g.ports != nil {
				g.unpinIfEmpty()
			}
			g.closeMaps()
		}
	}()
	if g.members, err = pinnedMap(g.pin+"_members", &ebpf.MapSpec{Name: "usctp_members",
		Type: ebpf.ReusePortSockArray, KeySize: 4, ValueSize: 8, MaxEntries: groupMembers}); err != nil {
		return nil, err
	}
	if g.ports, err = pinnedMap(g.pin+"_ports", &ebpf.MapSpec{Name: "usctp_ports", Type: ebpf.Hash,
		KeySize: 4, ValueSize: 16, MaxEntries: 1 << 16, Flags: unix.BPF_F_NO_PREALLOC}); err != nil {
		return nil, err
	}
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.SkReuseport, License: "Apache-2.0",
		Instructions: selectProgram(g.members, g.ports)})
	if err != nil {
		return nil, fmt.Errorf("loading the socket selection program: %w", err)
	}
	defer prog.Close() // the group holds it
	var serr error
	err = rc.Control(func(fd uintptr) {
		if g.cookie, serr = unix.GetsockoptUint64(int(fd), unix.SOL_SOCKET, unix.SO_COOKIE); serr != nil {
			return
		}
		serr = fmt.Errorf("all %d member slots taken", groupMembers)
		for i := range uint32(groupMembers) {
			if g.members.Update(i, uint64(fd), ebpf.UpdateNoExist) == nil {
				g.slot, serr = i, nil
				break
			}
		}
		if serr != nil {
			return
		}
		if serr = g.checkFounding(addr); serr != nil {
			_ = g.members.Delete(g.slot)
			return
		}
		if serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_ATTACH_REUSEPORT_EBPF, prog.FD()); serr != nil {
			_ = g.members.Delete(g.slot)
			serr = fmt.Errorf("attaching the socket selection program: %w", serr)
		}
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		return nil, err
	}
	// Entries a dead member of the slot left are stale.
	var port uint32
	var e portEntry
	var stale []uint32
	for it := g.ports.Iterate(); it.Next(&port, &e); {
		if e.Member == g.slot && e.Cookie != g.cookie {
			stale = append(stale, port)
		}
	}
	for _, p := range stale {
		_ = g.ports.Delete(p)
	}
	return g, nil
}

// checkFounding fails when the socket founds the group (no other member
// is live) of an address and port that other sockets share already with
// SO_REUSEPORT (ListenShards' sockets, or another program's): attaching
// the selection program would take their datagrams.
func (g *hostGroup) checkFounding(addr netip.AddrPort) error {
	for i := range uint32(groupMembers) {
		var c uint64
		if i != g.slot && g.members.Lookup(i, &c) == nil {
			return nil // a member: the group exists
		}
	}
	if n, err := UDPBound(addr); err != nil || n <= 1 {
		return nil
	}
	return fmt.Errorf("UDP %v is shared already by sockets outside a host group (SO_REUSEPORT: ListenShards, "+
		"or another program): %w", addr, unix.EADDRINUSE)
}

// closeMaps closes the group's map descriptors.
func (g *hostGroup) closeMaps() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.mapsClosed {
		return
	}
	g.mapsClosed = true
	if g.members != nil {
		g.members.Close()
	}
	if g.ports != nil {
		g.ports.Close()
	}
}

// live reports whether e is the entry of a member socket still in its
// slot.
func (g *hostGroup) live(e portEntry) bool {
	var c uint64
	return g.members.Lookup(e.Member, &c) == nil && c == e.Cookie
}

// claim registers the socket for SCTP port: it fails with
// errServedElsewhere when another member of the group serves it.
func (g *hostGroup) claim(port uint16) error {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.mapsClosed {
		return net.ErrClosed
	}
	mine := portEntry{Member: g.slot, Cookie: g.cookie}
	err := g.ports.Update(uint32(port), mine, ebpf.UpdateNoExist)
	if !errors.Is(err, ebpf.ErrKeyExist) {
		return err
	}
	unlock, err := lockPins()
	if err != nil {
		return err
	}
	defer unlock()
	var e portEntry
	if g.ports.Lookup(uint32(port), &e) == nil && e.Cookie != g.cookie && g.live(e) {
		return errServedElsewhere
	}
	return g.ports.Update(uint32(port), mine, ebpf.UpdateAny)
}

// release withdraws the socket's registration for SCTP port.
func (g *hostGroup) release(port uint16) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.mapsClosed {
		return
	}
	var e portEntry
	if g.ports.Lookup(uint32(port), &e) == nil && e.Cookie == g.cookie {
		_ = g.ports.Delete(uint32(port))
	}
}

// servedElsewhere reports whether another member of the group serves
// SCTP port: a datagram of it that reached this socket (the kernel's
// receive offload merges datagrams of one flow, and a merged one goes
// where its first datagram goes) belongs to another process.
func (g *hostGroup) servedElsewhere(port uint16) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.mapsClosed {
		return false
	}
	var e portEntry
	return g.ports.Lookup(uint32(port), &e) == nil && e.Cookie != g.cookie && g.live(e)
}

// leave ends the membership as its socket closes (close closes it): the
// last member of the group removes the group's pins.
func (g *hostGroup) leave(close func() error) error {
	defer g.closeMaps()
	unlock, lerr := lockPins()
	err := close()
	if lerr != nil {
		return err
	}
	defer unlock()
	g.unpinIfEmpty()
	return err
}

// unpinIfEmpty removes the group's pins when no member but this socket
// is left. Called with the pin lock held.
func (g *hostGroup) unpinIfEmpty() {
	for i := range uint32(groupMembers) {
		var c uint64
		if g.members.Lookup(i, &c) == nil && c != g.cookie {
			return // another member
		}
	}
	_ = os.Remove(g.pin + "_members")
	_ = os.Remove(g.pin + "_ports")
}
