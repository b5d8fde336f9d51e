// Package sctp is a userspace implementation of the Stream Control
// Transmission Protocol (RFC 9260) and its extensions.
package sctp
