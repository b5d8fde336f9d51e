package sctp

import "github.com/usctp/usctp/sctp/internal/api"

// PMTUState is the path MTU discovery state of a path (RFC 8899 section
// 5.2), in PathInfo.PMTU.
type PMTUState = api.PMTUState

// Path MTU discovery states.
const (
	PMTUDisabled       = api.PMTUDisabled       // Config.DisablePMTUDiscovery: packets are sized for Config.MTU
	PMTUBase           = api.PMTUBase           // confirming that the path carries 1200-byte packets (BASE_PLPMTU)
	PMTUSearch         = api.PMTUSearch         // probing for larger packets, or checking a suspected black hole
	PMTUSearchComplete = api.PMTUSearchComplete // the search ended; PathInfo.MTU is the PLPMTU
	PMTUError          = api.PMTUError          // even BASE_PLPMTU probes were lost; probed again later
)
