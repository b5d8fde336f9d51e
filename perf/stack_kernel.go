package perf

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	ksctp "github.com/ishidawataru/sctp"
	"github.com/usctp/usctp/sctp"
)

// kernelStack runs the host kernel's SCTP (Linux net/sctp) through
// github.com/ishidawataru/sctp, one-to-one style sockets, one per
// association. It needs a kernel with SCTP (the sctp module loaded); over
// -transport udp (RFC 6951) also net.sctp.udp_port set (Linux 5.11 and later),
// and for -interleave net.sctp.intl_enable=1.
type kernelStack struct{}

func init() { Register(kernelStack{}) }

func (kernelStack) Name() string    { return "kernel" }
func (kernelStack) InProcess() bool { return false }

// ErrNoKernelSCTP is returned by the kernel stack on hosts whose kernel
// has no SCTP.
var ErrNoKernelSCTP = errors.New("kernel has no SCTP")

// kernelHasSCTP opens and closes an SCTP socket to find out whether the
// kernel speaks SCTP.
func kernelHasSCTP() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, syscall.IPPROTO_SCTP)
	if err != nil {
		return fmt.Errorf("%w: socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP): %v (load the sctp module, or run in the interop guest)", ErrNoKernelSCTP, err)
	}
	syscall.Close(fd)
	return nil
}

// kernelCheck checks that the kernel can do what cfg asks. Over UDP it returns the
// kernel's encapsulation port, which is taken to be the peer's too: the same machine,
// or one configured alike (9899 is the IANA-assigned port). A listener needs no port:
// Linux answers a peer on the port its packets came from.
func kernelCheck(cfg *Config) (encapPort uint16, err error) {
	if err := kernelHasSCTP(); err != nil {
		return 0, err
	}
	switch cfg.Transport {
	case "ip":
	case "udp":
		if encapPort, err = kernelUDPPort(); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("kernel: transport %q: %w", cfg.Transport, ErrUnsupported)
	}
	if cfg.Sched != "" {
		k, err := sctp.ParseScheduler(cfg.Sched)
		if err != nil {
			return 0, err
		}
		if k > sctp.SchedulerWFQ {
			return 0, fmt.Errorf("kernel: scheduler %v: %w (Linux has fcfs, prio and rr, and fc and wfq in newer kernels such as 6.12)", k, ErrUnsupported)
		}
	}
	return encapPort, nil
}

// kernelSocket returns the Control function that sets up a new socket for cfg before it
// binds or connects: RFC 6951 encapsulation towards the peer's port encapPort (0: none),
// I-DATA, and the stream scheduler.
func kernelSocket(cfg *Config, encapPort uint16) func(network, address string, c syscall.RawConn) error {
	return func(_, _ string, c syscall.RawConn) error {
		var err error
		cerr := c.Control(func(fd uintptr) {
			if encapPort != 0 {
				if err = setRemoteEncapsPort(int(fd), encapPort); err != nil {
					return
				}
			}
			if cfg.Interleave {
				if err = setInterleaving(int(fd)); err != nil {
					return
				}
			}
			if cfg.Sched != "" {
				k, _ := sctp.ParseScheduler(cfg.Sched) // checked by kernelCheck
				err = setStreamScheduler(int(fd), k)
			}
		})
		if cerr != nil {
			return cerr
		}
		return err
	}
}

// kernelUDPPort returns the kernel's SCTP-over-UDP port (RFC 6951; the sysctl
// net.sctp.udp_port, Linux 5.11 and later), the port it receives encapsulated
// SCTP on and sends it from. 0 means the kernel does not encapsulate.
func kernelUDPPort() (uint16, error) {
	const sysctl = "/proc/sys/net/sctp/udp_port"
	b, err := os.ReadFile(sysctl)
	if err != nil {
		return 0, fmt.Errorf("kernel: transport udp: %w (Linux 5.11 or later has it; or use -transport ip)", err)
	}
	p, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 16)
	if err != nil || p == 0 {
		return 0, fmt.Errorf("kernel: transport udp: net.sctp.udp_port is %q: %w until it is set (sysctl -w net.sctp.udp_port=9899), or use -transport ip", strings.TrimSpace(string(b)), ErrUnsupported)
	}
	return uint16(p), nil
}

func kernelInit(cfg *Config) ksctp.InitMsg {
	n := uint16(max(min(cfg.Streams, 65535), 1))
	return ksctp.InitMsg{NumOstreams: n, MaxInstreams: n}
}

func kernelAddr(addr string) (*ksctp.SCTPAddr, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host == "" {
		host = "0.0.0.0"
	}
	return ksctp.ResolveSCTPAddr("sctp", net.JoinHostPort(host, port))
}

// Check reports whether this machine's kernel can run cfg (Checker).
func (kernelStack) Check(cfg *Config) error {
	_, err := kernelCheck(cfg)
	return err
}

func (kernelStack) Listen(ctx context.Context, addr string, cfg *Config) (Listener, error) {
	if _, err := kernelCheck(cfg); err != nil {
		return nil, err
	}
	la, err := kernelAddr(addr)
	if err != nil {
		return nil, err
	}
	sc := ksctp.SocketConfig{InitMsg: kernelInit(cfg), Control: kernelSocket(cfg, 0)}
	ln, err := sc.Listen("sctp", la)
	if err != nil {
		return nil, fmt.Errorf("kernel: listen %s: %w", addr, err)
	}
	return &kernelListener{ln: ln, cfg: *cfg}, nil
}

type kernelListener struct {
	ln   *ksctp.SCTPListener
	cfg  Config
	once sync.Once
}

func (l *kernelListener) Accept(ctx context.Context) (Conn, error) {
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	c, err := l.ln.AcceptSCTP()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return newKernelConn(c, &l.cfg)
}

func (l *kernelListener) Addr() string {
	a, ok := l.ln.Addr().(*ksctp.SCTPAddr)
	if !ok || len(a.IPAddrs) == 0 {
		return l.ln.Addr().String()
	}
	return net.JoinHostPort(a.IPAddrs[0].IP.String(), strconv.Itoa(a.Port))
}

func (l *kernelListener) Close() error {
	var err error
	l.once.Do(func() { err = l.ln.Close() })
	return err
}

func (kernelStack) Dial(ctx context.Context, addr string, cfg *Config) (Conn, error) {
	encap, err := kernelCheck(cfg)
	if err != nil {
		return nil, err
	}
	ra, err := kernelAddr(addr)
	if err != nil {
		return nil, err
	}
	sc := ksctp.SocketConfig{InitMsg: kernelInit(cfg), Control: kernelSocket(cfg, encap)}
	c, err := sc.Dial("sctp", nil, ra)
	if err != nil {
		return nil, fmt.Errorf("kernel: dial %s: %w", addr, err)
	}
	return newKernelConn(c, cfg)
}

type kernelConn struct {
	c    *ksctp.SCTPConn
	info ksctp.SndRcvInfo
}

func newKernelConn(c *ksctp.SCTPConn, cfg *Config) (*kernelConn, error) {
	if err := c.SubscribeEvents(ksctp.SCTP_EVENT_DATA_IO); err != nil {
		c.Close()
		return nil, fmt.Errorf("kernel: subscribe to data I/O events: %w", err)
	}
	vals := cfg.Weights
	if len(cfg.Prios) > 0 {
		vals = cfg.Prios
	}
	if len(vals) > 0 {
		rc, err := c.SyscallConn()
		if err != nil {
			c.Close()
			return nil, err
		}
		for sid, v := range vals {
			var serr error
			if err := rc.Control(func(fd uintptr) { serr = setStreamValue(int(fd), uint16(sid), v) }); err != nil || serr != nil {
				c.Close()
				return nil, fmt.Errorf("kernel: stream %d value %d: %w", sid, v, errors.Join(err, serr))
			}
		}
	}
	if cfg.SndBuf > 0 {
		c.SetWriteBuffer(cfg.SndBuf)
	}
	if cfg.RcvBuf > 0 {
		c.SetReadBuffer(cfg.RcvBuf)
	}
	return &kernelConn{c: c}, nil
}

func (k *kernelConn) Send(p []byte, sid uint16, ppid uint32) error {
	k.info.Stream, k.info.PPID = sid, ppid
	_, err := k.c.SCTPWrite(p, &k.info)
	return err
}

func (k *kernelConn) Recv(p []byte) (int, uint16, uint32, error) {
	n, info, err := k.c.SCTPRead(p)
	if err != nil {
		return n, 0, 0, err
	}
	if info == nil {
		return n, 0, 0, nil
	}
	return n, info.Stream, info.PPID, nil
}

func (k *kernelConn) Close() error { return k.c.Close() }
