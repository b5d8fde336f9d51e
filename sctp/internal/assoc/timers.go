package assoc

import "time"

// timerID names one of the association's control-plane timers. The data
// plane's timers (T3-rtx, delayed SACK) live in the transfer engine, which
// reports its own next deadline.
type timerID uint8

const (
	timerT1Init     timerID = iota // RFC 9260 section 5.1 A: INIT retransmission
	timerT1Cookie                  // section 5.1 C: COOKIE ECHO retransmission
	timerT2Shutdown                // section 9.2: SHUTDOWN / SHUTDOWN ACK retransmission
	timerT5Guard                   // section 9.2: T5-shutdown-guard, 5 x RTO.Max
	timerHeartbeat                 // section 8.3: heartbeat of an idle path
	timerReconf                    // RFC 6525 section 5.1.1: RE-CONFIG request retransmission
	timerPaths                     // sections 5.4, 8.3: heartbeats of the other paths (paths.go)
	timerASCONF                    // RFC 5061 section 5.1: ASCONF retransmission (asconf_send.go)
	timerPMTU                      // RFC 8899: PLPMTU probes, lost-probe and raise timers (pmtu.go)
	numTimers
)

var timerNames = [numTimers]string{"T1-init", "T1-cookie", "T2-shutdown", "T5-shutdown-guard", "heartbeat", "reconf", "path-heartbeat", "asconf", "pmtu"}

// String returns the RFC name of the timer.
func (t timerID) String() string {
	if t < numTimers {
		return timerNames[t]
	}
	return "timer(?)"
}

// timers holds one deadline per control-plane timer; the zero time means
// the timer is stopped. There is no timer object: the shell arms one real
// timer per endpoint at the earliest deadline.
type timers struct {
	at    [numTimers]time.Time
	min   time.Time // earliest of at, valid unless stale
	stale bool
}

func (t *timers) start(id timerID, now time.Time, d time.Duration) {
	t.at[id] = now.Add(d)
	t.stale = true
}
func (t *timers) stop(id timerID) { t.at[id], t.stale = time.Time{}, true }
func (t *timers) stopAll()        { *t = timers{} }

// next returns the earliest running deadline, or the zero time. It is
// asked after every packet (the endpoint's timer heap), the timers change
// rarely: the result is kept until start or stop.
func (t *timers) next() time.Time {
	if t.stale {
		var min time.Time
		for _, d := range t.at {
			min = earliest(min, d)
		}
		t.min, t.stale = min, false
	}
	return t.min
}

// expired returns the first timer whose deadline is at or before now.
func (t *timers) expired(now time.Time) (timerID, bool) {
	for id, d := range t.at {
		if !d.IsZero() && !d.After(now) {
			return timerID(id), true
		}
	}
	return 0, false
}

// earliest returns the earlier of two deadlines, treating zero as "none".
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}

// backoff doubles an RTO up to max (RFC 9260 section 6.3.3 E2).
func backoff(rto, max time.Duration) time.Duration {
	if rto *= 2; rto > max || rto <= 0 {
		return max
	}
	return rto
}
