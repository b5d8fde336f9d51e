package transfer

// sackHeaderLen is the length of a SACK chunk without Gap Ack Blocks and
// duplicate TSNs (RFC 9260 section 3.3.4).
const sackHeaderLen = 16

func pad4(n int) int { return (n + 3) &^ 3 }
