package sctp

import "github.com/usctp/usctp/sctp/chunk"

// SNAP (draft-hancke-tsvwg-snap) replaces the handshake by INIT chunks
// exchanged in the SDP (a=sctp-init). usctp does not set up associations
// from them: GenerateOutOfBandToken fails, so that pion/webrtc, which then
// leaves the attribute out of its offer or answer, and its peer, run the
// normal handshake.

// snapTokens are the tokens given with WithSNAP.
type snapTokens struct{ local, remote []byte }

// GenerateOutOfBandToken would make the INIT chunk that SNAP carries in
// the SDP. usctp does not set up an
// association from one: it returns an error.
func GenerateOutOfBandToken(opts ...ClientOption) ([]byte, error) {
	var cfg Config
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyClient(&cfg); err != nil {
			return nil, err
		}
	}
	return nil, errSNAP
}

// WithSNAP takes the INIT chunks the two ends exchanged out of band
// (draft-hancke-tsvwg-snap).
// The tokens must be INIT chunks; the association runs the normal
// handshake all the same.
func WithSNAP(localSctpInit []byte, remoteSctpInit []byte) AssociationOption {
	return sharedOption(func(c *Config) error {
		if len(localSctpInit) == 0 || len(remoteSctpInit) == 0 {
			return errInvalidSNAPToken
		}
		for _, t := range [][]byte{localSctpInit, remoteSctpInit} {
			it := chunk.Chunks(t)
			if ch, ok := it.Next(); !ok || ch.Type != chunk.TypeInit {
				return errBadSNAPToken
			}
		}
		c.snap = &snapTokens{local: localSctpInit, remote: remoteSctpInit}
		return nil
	})
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
