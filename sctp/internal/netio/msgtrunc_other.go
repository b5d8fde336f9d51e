//go:build !unix

package netio

// msgTrunc is unknown here: truncated datagrams are not detected.
const msgTrunc = 0
