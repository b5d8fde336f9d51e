package sctp

import (
	"context"
	"errors"
	"fmt"

	usctp "github.com/usctp/usctp/sctp"
	"github.com/usctp/usctp/sctp/chunk"
)

// SNAP (draft-hancke-tsvwg-snap) replaces the handshake by INIT chunks
// exchanged in the SDP (a=sctp-init): each peer puts the INIT
// GenerateOutOfBandToken makes in its description, and ClientContext with
// WithSNAP(its own, the peer's) sets up the association from the two with
// usctp's DialOutOfBand, established at once, no packet exchanged.

// snapTokens are the tokens given with WithSNAP.
type snapTokens struct{ local, remote []byte }

// GenerateOutOfBandToken generates an out-of-band connection token (i.e. a
// serialized SCTP INIT chunk) for use with SNAP: a fresh verification tag
// and initial TSN, 65535 streams each way, the receive window
// (WithMaxReceiveBufferSize) as a_rwnd, and the extensions the association
// offers: FORWARD-TSN, RE-CONFIG, I-DATA unless WithEnableInterleaving is
// false, zero checksum with WithEnableZeroChecksum.
func GenerateOutOfBandToken(opts ...ClientOption) ([]byte, error) {
	w := make([]clientOpt, len(opts))
	for i, o := range opts {
		w[i] = clientOpt{o}
	}
	cfg, err := build(w, false)
	if err != nil {
		return nil, err
	}
	uc, _, err := usctpConfig(cfg)
	if err != nil {
		return nil, err
	}
	uc.Conn, uc.Pcap = nil, ""
	return usctp.OutOfBandInit(uc)
}

// WithSNAP enables SNAP, https://datatracker.ietf.org/doc/draft-hancke-tsvwg-snap/:
// ClientContext sets up the association from this end's token
// (GenerateOutOfBandToken) and the peer's, with no handshake. Each must
// be one INIT chunk.
func WithSNAP(localSctpInit []byte, remoteSctpInit []byte) AssociationOption {
	return sharedOption(func(c *Config) error {
		if len(localSctpInit) == 0 || len(remoteSctpInit) == 0 {
			return errInvalidSNAPToken
		}
		for _, t := range []struct {
			name string
			b    []byte
		}{{"local", localSctpInit}, {"remote", remoteSctpInit}} {
			if _, err := parseToken(t.b); err != nil {
				return fmt.Errorf("%w: %s token: %w", errBadSNAPToken, t.name, err)
			}
		}
		c.snap = &snapTokens{local: localSctpInit, remote: remoteSctpInit}
		return nil
	})
}

// parseToken parses a token: one INIT chunk, its padding optional.
func parseToken(b []byte) (chunk.Init, error) {
	it := chunk.Chunks(b)
	c, ok := it.Next()
	if !ok {
		if err := it.Err(); err != nil {
			return chunk.Init{}, err
		}
		return chunk.Init{}, errors.New("empty")
	}
	if c.Type != chunk.TypeInit {
		return chunk.Init{}, fmt.Errorf("chunk type %v", c.Type)
	}
	if _, more := it.Next(); more || it.Err() != nil {
		return chunk.Init{}, errors.New("bytes after the INIT chunk")
	}
	return chunk.ParseInit(c)
}

// clientSNAP is ClientContext with WithSNAP: the association comes from
// the two tokens. The local token says what this end offered the peer, so
// the association's I-DATA and zero checksum follow it rather than the
// options.
func clientSNAP(ctx context.Context, cfg *Config, uc *usctp.Config, raddr string) (*Association, error) {
	init, err := parseToken(cfg.snap.local)
	if err != nil {
		return nil, fmt.Errorf("%w: local token: %w", errBadSNAPToken, err)
	}
	uc.Extensions.Interleaving, uc.Extensions.ZeroChecksumDTLS = false, false
	it := init.Walk()
	for p, ok := it.Next(); ok; p, ok = it.Next() {
		switch p.Type {
		case chunk.ParamSupportedExtensions:
			for _, t := range p.Types() {
				if chunk.Type(t) == chunk.TypeIData {
					uc.Extensions.Interleaving = true
				}
			}
		case chunk.ParamZeroChecksum:
			if v, err := p.Uint32(); err == nil && v == chunk.EDMIDDTLS {
				uc.Extensions.ZeroChecksumDTLS = true
			}
		}
	}
	as, err := usctp.DialOutOfBand(ctx, raddr, uc, cfg.snap.local, cfg.snap.remote)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %w", errBadSNAPToken, err)
	}
	return newAssociation(cfg, as, as.Endpoint()), nil
}

// TryMarshalUnmarshal attempts to marshal and unmarshal a message. Added for
// fuzzing: it reports 1 when msg parses as an SCTP packet whose chunks are
// well formed, 0 otherwise.
func TryMarshalUnmarshal(msg []byte) int {
	p, err := chunk.ParsePacket(msg)
	if err != nil {
		return 0
	}
	it := p.Walk()
	for _, ok := it.Next(); ok; _, ok = it.Next() {
	}
	if it.Err() != nil {
		return 0
	}
	return 1
}
