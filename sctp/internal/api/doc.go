// Package api holds the value types that cross the layers of usctp and
// that the public API of package sctp shows: configuration groups,
// counters, events, error values and enumerations. Each is defined here
// once, or aliased here from the lowest package that needs it (the path
// MTU discovery state, from the prober in package plpmtud); package sctp
// aliases them, and the core (assoc) and the data plane (transfer) use
// them directly.
package api
