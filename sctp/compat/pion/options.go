package sctp

import (
	"net"
	"time"

	"github.com/pion/logging"
)

// Config collects the arguments to createAssociation construction into a
// single structure: the settings of an association, which Client and
// Server take whole and the options set one by one.
type Config struct {
	LoggerFactory logging.LoggerFactory
	Name          string
	NetConn       net.Conn
	BlockWrite    bool
	// EnableZeroChecksum offers RFC 9653's zero checksum, for SCTP over
	// DTLS only (DTLS already detects errors).
	EnableZeroChecksum bool
	MTU                uint32

	// Buffers, message size and congestion control.
	MaxReceiveBufferSize uint32
	MaxMessageSize       uint32
	// RTOMax caps the retransmission timeout, in milliseconds.
	RTOMax float64
	// MinCwnd is the smallest congestion window, in bytes.
	MinCwnd uint32
	// FastRtxWnd bounds what fast retransmission resends, in bytes.
	FastRtxWnd uint32
	// CwndCAStep is the congestion window's growth per round trip in
	// congestion avoidance, in bytes.
	CwndCAStep uint32

	interleaving    interleavingSettings
	interleavingSet bool // WithEnableInterleaving was given
	noInterleaving  bool // WithEnableInterleaving(false)
	snap            *snapTokens
}

// Defaults of the original.
const (
	defaultMTU            = 1191 // IP and DTLS headers left out of 1280
	defaultRecvBuffer     = 1 << 20
	defaultMaxMessageSize = 65536
)

// ClientOption is a setting of ClientWithOptions.
type ClientOption interface {
	applyClient(*Config) error
}

// ServerOption is a setting of ServerWithOptions.
type ServerOption interface {
	applyServer(*Config) error
}

// AssociationOption is a setting of either side.
type AssociationOption interface {
	ServerOption
	ClientOption
}

// applyClient makes a Config the option of the deprecated Client: its
// set fields replace the defaults.
func (c Config) applyClient(cfg *Config) error { return c.apply(cfg) }

// applyServer makes a Config the option of the deprecated Server.
func (c Config) applyServer(cfg *Config) error { return c.apply(cfg) }

func (c Config) apply(cfg *Config) error {
	if c.LoggerFactory != nil {
		cfg.LoggerFactory = c.LoggerFactory
	}
	if c.Name != "" {
		cfg.Name = c.Name
	}
	if c.NetConn != nil {
		cfg.NetConn = c.NetConn
	}
	cfg.BlockWrite = c.BlockWrite
	cfg.EnableZeroChecksum = c.EnableZeroChecksum
	if c.MTU != 0 {
		if err := validateMTU(c.MTU); err != nil {
			return err
		}
		cfg.MTU = c.MTU
	}
	if c.MaxReceiveBufferSize != 0 {
		cfg.MaxReceiveBufferSize = c.MaxReceiveBufferSize
	}
	if c.MaxMessageSize != 0 {
		cfg.MaxMessageSize = c.MaxMessageSize
	}
	if c.RTOMax != 0 {
		cfg.RTOMax = c.RTOMax
	}
	cfg.MinCwnd, cfg.FastRtxWnd, cfg.CwndCAStep = c.MinCwnd, c.FastRtxWnd, c.CwndCAStep
	return nil
}

// build applies opts over the defaults; needConn makes it fail without
// WithNetConn.
func build[O interface{ apply(*Config) error }](opts []O, needConn bool) (*Config, error) {
	cfg := &Config{}
	for _, o := range opts {
		if err := o.apply(cfg); err != nil {
			return nil, err
		}
	}
	if cfg.NetConn == nil && needConn {
		return nil, errNilNetConn
	}
	if cfg.LoggerFactory == nil {
		cfg.LoggerFactory = logging.NewDefaultLoggerFactory()
	}
	if cfg.MTU == 0 {
		cfg.MTU = defaultMTU
	}
	if cfg.MaxReceiveBufferSize == 0 {
		cfg.MaxReceiveBufferSize = defaultRecvBuffer
	}
	if cfg.MaxMessageSize == 0 {
		cfg.MaxMessageSize = defaultMaxMessageSize
	}
	return cfg, nil
}

// clientOpt and serverOpt adapt the option interfaces to build.
type (
	clientOpt struct{ ClientOption }
	serverOpt struct{ ServerOption }
)

func (o clientOpt) apply(c *Config) error {
	if o.ClientOption == nil {
		return nil
	}
	return o.applyClient(c)
}

func (o serverOpt) apply(c *Config) error {
	if o.ServerOption == nil {
		return nil
	}
	return o.applyServer(c)
}

func clientConfig(opts []ClientOption) (*Config, error) {
	w := make([]clientOpt, len(opts))
	for i, o := range opts {
		w[i] = clientOpt{o}
	}
	return build(w, true)
}

func serverConfig(opts []ServerOption) (*Config, error) {
	w := make([]serverOpt, len(opts))
	for i, o := range opts {
		w[i] = serverOpt{o}
	}
	return build(w, true)
}

// sharedOption is an option for both client and server.
type sharedOption func(*Config) error

func (o sharedOption) applyServer(c *Config) error { return o(c) }
func (o sharedOption) applyClient(c *Config) error { return o(c) }

// validateMTU checks that an MTU leaves room for a DATA chunk with data.
func validateMTU(mtu uint32) error {
	switch {
	case mtu == 0:
		return errZeroMTU
	case mtu <= 12+16+4: // common header, I-DATA header, some data
		return errMTUTooSmall
	}
	return nil
}

// WithLoggerFactory names where the association logs.
func WithLoggerFactory(loggerFactory logging.LoggerFactory) AssociationOption {
	return sharedOption(func(c *Config) error {
		if loggerFactory == nil {
			return errNilLoggerFactory
		}
		c.LoggerFactory = loggerFactory
		return nil
	})
}

// WithName names the association in its logs.
func WithName(name string) AssociationOption {
	return sharedOption(func(c *Config) error { c.Name = name; return nil })
}

// WithNetConn is the connection the association's packets go over
// (DTLS in WebRTC).
func WithNetConn(conn net.Conn) AssociationOption {
	return sharedOption(func(c *Config) error {
		if conn == nil {
			return errNilNetConn
		}
		c.NetConn = conn
		return nil
	})
}

// WithBlockWrite makes writes wait while the send buffer is full; off
// (the default), writes never wait.
func WithBlockWrite(b bool) AssociationOption {
	return sharedOption(func(c *Config) error { c.BlockWrite = b; return nil })
}

// WithEnableZeroChecksum sets whether the association should accept zero as a
// valid checksum. By default this is false.
func WithEnableZeroChecksum(b bool) AssociationOption {
	return sharedOption(func(c *Config) error { c.EnableZeroChecksum = b; return nil })
}

// WithEnableInterleaving sets whether the association should negotiate message
// interleaving. By default this is true.
func WithEnableInterleaving(b bool) AssociationOption {
	return sharedOption(func(c *Config) error {
		c.interleavingSet, c.noInterleaving = true, !b
		return nil
	})
}

// WithMTU sets the MTU size for the association. By default this is 1191.
func WithMTU(size uint32) AssociationOption {
	return sharedOption(func(c *Config) error {
		if err := validateMTU(size); err != nil {
			return err
		}
		c.MTU = size
		return nil
	})
}

// WithMaxReceiveBufferSize sets the maximum receive buffer size for the
// association. By default this is 1024 * 1024 = 1048576.
func WithMaxReceiveBufferSize(size uint32) AssociationOption {
	return sharedOption(func(c *Config) error {
		if size == 0 {
			return errZeroReceiveBuffer
		}
		c.MaxReceiveBufferSize = size
		return nil
	})
}

// WithMaxMessageSize sets the largest message a write accepts (default
// 65536).
func WithMaxMessageSize(size uint32) AssociationOption {
	return sharedOption(func(c *Config) error {
		if size == 0 {
			return errZeroMaxMessageSize
		}
		c.MaxMessageSize = size
		return nil
	})
}

// WithMaxReassemblyQueueEntries caps the number of DATA entries and I-DATA
// MIDs queued per stream. A value of 0 disables the cap. By default this cap
// is disabled. usctp bounds reassembly by the receive buffer and its memory
// budget instead: the option is accepted and has no effect.
func WithMaxReassemblyQueueEntries(maxEntries uint32) AssociationOption {
	return sharedOption(func(*Config) error { return nil })
}

// WithRTOMax caps the retransmission timeout, in milliseconds.
func WithRTOMax(rtoMax float64) AssociationOption {
	return sharedOption(func(c *Config) error {
		if rtoMax <= 0 {
			return errInvalidRTOMax
		}
		c.RTOMax = rtoMax
		return nil
	})
}

// WithMinCwnd sets the smallest congestion window, in bytes.
// usctp's congestion control follows RFC 9260 and keeps its own floor: the
// value is recorded in Config and has no effect.
func WithMinCwnd(minCwnd uint32) AssociationOption {
	return sharedOption(func(c *Config) error { c.MinCwnd = minCwnd; return nil })
}

// WithFastRtxWnd bounds what fast retransmission resends, in bytes.
// usctp finds losses with RACK: the value is recorded and has no effect.
func WithFastRtxWnd(fastRtxWnd uint32) AssociationOption {
	return sharedOption(func(c *Config) error { c.FastRtxWnd = fastRtxWnd; return nil })
}

// WithCwndCAStep sets the congestion window congestion avoidance step for
// the association. usctp grows the window as RFC 9260 section 7.2.2 says:
// the value is recorded and has no effect.
func WithCwndCAStep(cwndCAStep uint32) AssociationOption {
	return sharedOption(func(c *Config) error { c.CwndCAStep = cwndCAStep; return nil })
}

// AssociationRACKOption is a setting of RACK loss detection, for
// WithRACKOptions.
type AssociationRACKOption func(*rackSettings) error

// rackSettings are the RACK settings the options validate; usctp's RACK
// keeps its own.
type rackSettings struct{}

// WithRACKOptions applies RACK settings (WithRackMinRTTWnd, ...).
// They are validated as the original does; usctp's loss detection keeps its
// own settings.
func WithRACKOptions(opts ...AssociationRACKOption) AssociationOption {
	return sharedOption(func(*Config) error {
		var s rackSettings
		for _, o := range opts {
			if o == nil {
				continue
			}
			if err := o(&s); err != nil {
				return err
			}
		}
		return nil
	})
}

// WithRackMinRTTWnd sets how far back the smallest round-trip time is
// looked for (30 s when not set); it must be positive.
func WithRackMinRTTWnd(rackMinRTTWnd time.Duration) AssociationRACKOption {
	return positiveRACK(rackMinRTTWnd)
}

// WithRackReoWndFloor sets the smallest RACK reordering window (0 when
// not set); it must not be negative.
func WithRackReoWndFloor(rackReoWndFloor time.Duration) AssociationRACKOption {
	return func(*rackSettings) error {
		if rackReoWndFloor < 0 {
			return errInvalidRACKOption
		}
		return nil
	}
}

// WithRackWCDelAck sets the receiver worst-case delayed-ACK for PTO when only
// 1 packet is in flight. By default this is 200 ms.
func WithRackWCDelAck(rackWCDelAck time.Duration) AssociationRACKOption {
	return positiveRACK(rackWCDelAck)
}

func positiveRACK(d time.Duration) AssociationRACKOption {
	return func(*rackSettings) error {
		if d <= 0 {
			return errInvalidRACKOption
		}
		return nil
	}
}
