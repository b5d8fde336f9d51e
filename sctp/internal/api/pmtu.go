package api

import "github.com/usctp/usctp/sctp/internal/plpmtud"

// PMTUState is the path MTU discovery state of a path (RFC 8899 section
// 5.2), in PathInfo.PMTU. The prober (package plpmtud) defines it; its
// String returns the RFC 8899 name ("search-complete").
type PMTUState = plpmtud.State

// Path MTU discovery states.
const (
	// PMTUDisabled: Config.DisablePMTUDiscovery; packets are sized for
	// Config.MTU.
	PMTUDisabled = plpmtud.StateDisabled
	// PMTUBase: confirming that the path carries 1200-byte packets
	// (BASE_PLPMTU).
	PMTUBase = plpmtud.StateBase
	// PMTUSearch: probing for larger packets, or checking a suspected
	// black hole.
	PMTUSearch = plpmtud.StateSearch
	// PMTUSearchComplete: the search ended; PathInfo.MTU is the PLPMTU.
	// A path below Config.MTU is probed again after 10 minutes.
	PMTUSearchComplete = plpmtud.StateSearchComplete
	// PMTUError: even BASE_PLPMTU probes were lost; the path keeps
	// 1200-byte packets and is probed again later.
	PMTUError = plpmtud.StateError
)
