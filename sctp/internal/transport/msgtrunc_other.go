//go:build !unix

package transport

// msgTrunc is unknown here: truncated datagrams are not detected.
const msgTrunc = 0
