package main

import (
	"path"
	"slices"
)

// mutant is one planted bug: Old, which must occur exactly once in File,
// becomes New. Rule is the requirement the bug breaks.
type mutant struct {
	ID   string // area/short-name
	Area string
	File string // relative to the module root
	Old  string
	New  string
	Rule string
}

// target is one package run: the tests of Pkg matching Run (all when
// empty) and not Skip.
type target struct {
	Pkg  string
	Run  string
	Skip string
}

// areaTargets are the packages whose tests each area's mutants run, in
// order (the first that fails ends the run): the cheapest and most
// specific first. The sctp package's tests in network namespaces run in
// real time (a minute for the failover ones) and need root: they are
// skipped here.
var areaTargets = map[string][]target{
	"paths": {
		{"./sctp/internal/transfer", "", ""},
		{"./sctp/internal/assoc", "", ""},
		{"./sctp", "Multihom|Path|Primary|Failover|Unreach|Heartbeat", "Netns"},
	},
	"auth": {
		{"./sctp/internal/assoc", "", ""},
		{"./sctp", "Auth|DynamicAddrs", ""},
	},
	"asconf": {
		{"./sctp/internal/assoc", "", ""},
		{"./sctp", "Auth|DynamicAddrs|Multihom", "Netns"},
	},
	"pmtud": {
		{"./sctp/internal/plpmtud", "", ""},
		{"./sctp/internal/assoc", "", ""},
		{"./sctp", "PMTU|MTU|Unreach", "Netns"},
	},
	"rack": {
		{"./sctp/internal/transfer", "", ""},
		{"./sctp/internal/assoc", "", ""},
		{"./sctp", "SimLoss|SimTransferLoss|SimDelayedSACK", ""},
	},
	"ecn": {
		{"./sctp/internal/transfer", "", ""},
		{"./sctp/internal/assoc", "", ""},
		{"./sctp", "ECN|ECT", ""},
	},
	"compat": {
		{"./sctp/compat", "Notif|SndRcv|Multihom|PeerAddr|Status|EOF|Constants|Wrapped", ""},
	},
}

// rank orders the packages by layer: a package's tests can only catch a
// mutant in its own package or one below it.
var rank = []string{"sctp/internal/plpmtud", "sctp/internal/transfer", "sctp/internal/assoc", "sctp", "sctp/compat"}

// targets returns the package runs of m's area that can see m's file.
func (m *mutant) targets() []target {
	own := slices.Index(rank, path.Dir(m.File))
	var ts []target
	for _, t := range areaTargets[m.Area] {
		if slices.Index(rank, path.Clean(t.Pkg)) >= own {
			ts = append(ts, t)
		}
	}
	return ts
}

// Files of the mutants.
const (
	trPaths   = "sctp/internal/transfer/paths.go"
	trSack    = "sctp/internal/transfer/sender_sack.go"
	trSender  = "sctp/internal/transfer/sender.go"
	trRack    = "sctp/internal/transfer/loss_rack.go"
	trECN     = "sctp/internal/transfer/ecn.go"
	asPaths   = "sctp/internal/assoc/paths.go"
	asProbe   = "sctp/internal/assoc/pathprobe.go"
	asReply   = "sctp/internal/assoc/reply.go"
	asNotice  = "sctp/internal/assoc/notice.go"
	asHB      = "sctp/internal/assoc/heartbeat.go"
	asAuth    = "sctp/internal/assoc/auth.go"
	asRecv    = "sctp/internal/assoc/recv.go"
	asASCONF  = "sctp/internal/assoc/asconf.go"
	asASCSend = "sctp/internal/assoc/asconf_send.go"
	asPMTU    = "sctp/internal/assoc/pmtu.go"
	asECN     = "sctp/internal/assoc/ecn.go"
	prober    = "sctp/internal/plpmtud/plpmtud.go"
	compatNot = "sctp/compat/notify.go"
)

// mutants are the planted bugs, by area.
var mutants = []mutant{
	// Path selection: RFC 9260 6.4, 6.4.1, 8.2, 8.3; RFC 7829.
	{"paths/alt-primary-down", "paths", trPaths,
		"if ps.primaryIdx != i && !ps.primary.down {", "if ps.primaryIdx != i || !ps.primary.down {",
		"6.4.1: a retransmission goes to an active alternate destination, not back to the one it was lost on"},
	{"paths/alt-down-chosen", "paths", trPaths,
		"if p.index != i && !p.down && p.cwnd > cw {", "if p.index != i && p.cwnd > cw {",
		"6.4.1: an inactive (down) destination is never the alternate"},
	{"paths/alt-same-path", "paths", trPaths,
		"if p.index != i && !p.down && p.cwnd > cw {", "if p.index == i && !p.down && p.cwnd > cw {",
		"6.4.1: the alternate is another destination than the one the chunk was lost on"},
	{"paths/destfor-t3-and", "paths", trPaths,
		"if r.marks&markT3 != 0 || ps.list[i].down {", "if r.marks&markT3 != 0 && ps.list[i].down {",
		"6.4.1: a chunk whose T3-rtx expired is retransmitted to an alternate destination"},
	{"paths/credit-wrong-path-clear", "paths", trPaths,
		"\t\t\tp.ClearErrors()\n", "\t\t\tps.primary.ClearErrors()\n",
		"8.2: an acknowledged TSN clears the error counter of the destination it was last sent to"},
	{"paths/credit-r2", "paths", trPaths,
		"\t\tif p.flight == 0 {\n\t\t\tp.t3 = time.Time{} // R2", "\t\tif p.flight != 0 {\n\t\t\tp.t3 = time.Time{} // R2",
		"6.3.2 R2: the T3-rtx timer of a destination with nothing outstanding is stopped"},
	{"paths/sack-elsewhere-clears-primary", "paths", trSack,
		"if newBytes > s.paths.ackedElsewhere {", "if newBytes >= s.paths.ackedElsewhere {",
		"8.2: a SACK acknowledging only data sent on a secondary path does not clear the primary's error counter"},
	{"paths/pathdown-no-move", "paths", trPaths,
		"if !down || len(s.paths.list) == 1 || s.paths.alternate(p.index) == p.index {",
		"if !down || len(s.paths.list) == 1 || s.paths.alternate(p.index) != p.index {",
		"6.4.1 / RFC 7829: chunks outstanding on a destination that fails are retransmitted on an alternate"},
	{"paths/pathup-moves-all", "paths", trPaths,
		"r.state == recInFlight && s.paths.list[r.marks>>pathShift].down {",
		"r.state == recInFlight && !s.paths.list[r.marks>>pathShift].down {",
		"6.4.1: a destination coming back moves only the chunks stranded on down paths"},
	{"paths/setprimary-t3-swap", "paths", trPaths,
		"old.t3, s.loss.t3 = s.loss.t3, np.t3", "old.t3, s.loss.t3 = np.t3, s.loss.t3",
		"6.3.2: each destination's T3-rtx stays with its destination when the primary changes"},
	{"paths/new-data-to-alternate", "paths", trSender,
		"if s.queue.unsent > 0 && newData && dest == s.paths.primaryIdx {", "if s.queue.unsent > 0 && newData {",
		"6.4: new data goes to the primary path; a retransmission to an alternate carries no new data"},
	{"paths/t3-marks-other-path", "paths", trPaths,
		"if r.state == recInFlight && r.marks>>pathShift == p.index {\n\t\t\t\ts.markForAlternate(r)\n\t\t\t\tmarked = true",
		"if r.state == recInFlight && r.marks>>pathShift != p.index {\n\t\t\t\ts.markForAlternate(r)\n\t\t\t\tmarked = true",
		"6.3.3 E3: a T3-rtx expiry marks the chunks outstanding on that destination"},
	{"paths/inactive-off-by-one", "paths", asPaths,
		"case n > p.pp.PathMaxRetransmits:", "case n >= p.pp.PathMaxRetransmits:",
		"8.2: a destination is inactive when its error count exceeds Path.Max.Retrans"},
	{"paths/pf-off-by-one", "paths", asPaths,
		"case n > p.pp.PFThreshold:", "case n >= p.pp.PFThreshold:",
		"RFC 7829 5.1: a destination is potentially failed when its error count exceeds PFMR"},
	{"paths/failed-primary-keeps-data", "paths", asPaths,
		"if a.data.eng.Primary() == p.eng {\n\t\tif j := a.alternatePath(i); j >= 0 {",
		"if a.data.eng.Primary() != p.eng {\n\t\tif j := a.alternatePath(i); j >= 0 {",
		"RFC 7829 5.1 / 6.4: new data leaves a primary that became potentially failed or inactive"},
	{"paths/alternate-not-active", "paths", asPaths,
		"if j != i && a.paths[j].state == api.PathActive {", "if j != i && a.paths[j].state != api.PathInactive {",
		"RFC 7829 5.1: data moves to an active destination, not a potentially failed or unconfirmed one"},
	{"paths/alternate-not-primary-first", "paths", asPaths,
		"\t\t\tif j == a.primary {\n\t\t\t\treturn j", "\t\t\tif j != a.primary {\n\t\t\t\treturn j",
		"6.4: when the current path fails and the primary is active, data goes back to the primary"},
	{"paths/noprimaryreturn-inverted", "paths", asPaths,
		"if i == a.primary && !a.ep.cfg.NoPrimaryReturn ||", "if i == a.primary && a.ep.cfg.NoPrimaryReturn ||",
		"RFC 7829 5.1: the returning primary takes the data back unless Primary Path Switchover is off (NoPrimaryReturn)"},
	{"paths/return-when-current-active", "paths", asPaths,
		"|| a.paths[a.enginePrimary()].state != api.PathActive {", "|| a.paths[a.enginePrimary()].state == api.PathActive {",
		"RFC 7829 5.1: a destination coming back takes the data only when the current one is not active (or it is the primary)"},
	{"paths/ack-keeps-engine-down", "paths", asPaths,
		"\t\t\tp.state = api.PathActive\n\t\t\teng.SetPathDown(p.eng, false)", "\t\t\tp.state = api.PathActive\n\t\t\teng.SetPathDown(p.eng, true)",
		"8.3: a HEARTBEAT ACK makes an inactive or potentially failed destination active again"},
	{"paths/hb-error-inverted", "paths", asPaths,
		"\t\t\tif p.out {\n\t\t\t\ta.pathError(now, i)", "\t\t\tif !p.out {\n\t\t\t\ta.pathError(now, i)",
		"8.3: a HEARTBEAT unacknowledged within one RTO counts an error"},
	{"paths/pf-probe-interval", "paths", asPaths,
		"once per RTO.\n\t\t\t\tp.next = now.Add(a.pathRTO(i))", "once per RTO.\n\t\t\t\tp.next = now.Add(p.pp.HeartbeatInterval + a.pathRTO(i))",
		"RFC 7829 5.1: a potentially failed destination is probed once per RTO"},
	{"paths/probed-off-by-one", "paths", asPaths,
		"return i > 0 || a.paths[0].state != api.PathActive", "return i > 1 || a.paths[0].state != api.PathActive",
		"5.4 / 8.3: every destination but the active primary is heartbeated by the path timer"},
	{"paths/made-primary-event-inverted", "paths", asPaths,
		"returned = i == a.primary && eng.Primary() != p.eng", "returned = i == a.primary && eng.Primary() == p.eng",
		"RFC 7829 5.1 / RFC 6458 SCTP_ADDR_MADE_PRIM: the primary taking the data back is reported once, when it does"},
	{"paths/datato-configured-primary", "paths", asReply,
		"return a.paths[a.enginePrimary()].addr", "return a.paths[a.primary].addr",
		"6.4: new data goes to the path the data moved to while the primary is down"},
	{"paths/sack-to-control-source", "paths", asReply,
		"if dataSeen && from.IsValid() {", "if from.IsValid() {",
		"6.4: a SACK goes to the source of the DATA it acknowledges"},
	{"paths/hb-counts-on-down-primary", "paths", asHB,
		"if a.paths[0].state == api.PathActive {", "if a.paths[0].state != api.PathActive {",
		"8.3 / RFC 7829: unacknowledged HEARTBEATs move the active handshake path to potentially failed"},
	{"paths/refused-last-path", "paths", asNotice,
		"if p.state != api.PathUnconfirmed && !a.otherReachable(i) {", "if p.state != api.PathUnconfirmed && a.otherReachable(i) {",
		"appendix C ICMP9: a refusal at one of several reachable addresses only fails that destination"},
	{"paths/unconfirmed-counts-reachable", "paths", asNotice,
		"(st == api.PathActive || st == api.PathPotentiallyFailed)", "(st == api.PathActive || st == api.PathUnconfirmed)",
		"appendix C ICMP8: a refusal at the last confirmed reachable address is the peer's"},
	{"paths/unreach-nonce-offset", "paths", asNotice,
		"binary.BigEndian.Uint64(quote[20:]) != p.nonce", "binary.BigEndian.Uint64(quote[24:]) != p.nonce",
		"appendix C: an ICMP unreachable counts against a path only when it quotes our outstanding HEARTBEAT"},
	{"paths/unconfirmed-giveup-off-by-one", "paths", asProbe,
		"if p.errors > p.pp.PathMaxRetransmits {\n\t\t// Never answered", "if p.errors >= p.pp.PathMaxRetransmits {\n\t\t// Never answered",
		"5.4 / 8.2: an unconfirmed address is probed until more than Path.Max.Retrans HEARTBEATs went unanswered"},
	{"paths/assoc-errors-off-by-one", "paths", asHB,
		"if a.errCount > a.ep.cfg.MaxRetransmits {\n\t\ta.fail(reasonPeerUnreachable, 0)\n\t\treturn true",
		"if a.errCount >= a.ep.cfg.MaxRetransmits {\n\t\ta.fail(reasonPeerUnreachable, 0)\n\t\treturn true",
		"8.1: the peer is unreachable when the error counter exceeds Association.Max.Retrans"},

	// AUTH: RFC 4895 sections 6.1 to 6.3.
	{"auth/hmac-last-supported", "auth", asAuth,
		"for i := 0; i+2 <= len(v) && send == 0; i += 2 {", "for i := 0; i+2 <= len(v); i += 2 {",
		"6.1: the HMAC used is the first of the peer's HMAC-ALGO list that we support"},
	{"auth/hmac-unsupported-chosen", "auth", asAuth,
		"if id := binary.BigEndian.Uint16(v[i:]); hmacLen(id) > 0 {", "if id := binary.BigEndian.Uint16(v[i:]); hmacLen(id) >= 0 {",
		"6.1: an HMAC identifier we do not support is never chosen"},
	{"auth/chunklist-inverted", "auth", asAuth,
		"\t\t\t\tif !neverAuthenticated(chunk.Type(ct)) {", "\t\t\t\tif neverAuthenticated(chunk.Type(ct)) {",
		"6.2: the chunks the peer listed in CHUNKS are sent authenticated"},
	{"auth/sha1-not-required", "auth", asAuth,
		"if binary.BigEndian.Uint16(p.hmacs[i:]) == chunk.HMACSHA1 {", "if binary.BigEndian.Uint16(p.hmacs[i:]) == chunk.HMACSHA256 {",
		"6.1: a HMAC-ALGO without SHA-1 is a protocol violation"},
	{"auth/random-length-lenient", "auth", asAuth,
		"len(p.random) != 4+authRandomLen", "len(p.random) < 4+authRandomLen",
		"6.1: a RANDOM of another length than 32 bytes aborts the association"},
	{"auth/hmac-not-offered-accepted", "auth", asAuth,
		"if !containsU16(a.ep.cfg.AuthHMAC, hmacID) {", "if hmacLen(hmacID) == 0 {",
		"6.3: an AUTH with an HMAC identifier we did not offer is answered with Unsupported HMAC Identifier and discarded"},
	{"auth/hmac-length-of-send-id", "auth", asAuth,
		"n := hmacLen(hmacID)\n\tif len(v) != 4+n {", "n := hmacLen(s.sendHMAC)\n\tif len(v) != 4+n {",
		"6.3: the receiver uses the HMAC algorithm of the AUTH's HMAC Identifier, not the one it sends with"},
	{"auth/needs-peer-list", "auth", asRecv,
		"if !authed && s.weNeed.has(c.typ) {", "if !authed && s.peerNeeds.has(c.typ) {",
		"6.3: a chunk of a type in OUR CHUNKS list without a valid AUTH before it is discarded"},
	{"auth/seal-own-list", "auth", asAuth,
		"} else if s.peerNeeds.has(c.Type) {", "} else if s.weNeed.has(c.Type) {",
		"6.2: chunks of the types the PEER listed are sent after an AUTH chunk"},
	{"auth/unsupported-cause-keyid", "auth", asAuth,
		"a.queueErrorCause(chunk.CauseUnsupportedHMAC, c.value()[2:4])", "a.queueErrorCause(chunk.CauseUnsupportedHMAC, c.value()[0:2])",
		"6.3: the Unsupported HMAC Identifier cause carries the HMAC identifier"},
	{"auth/key-order", "auth", asAuth,
		"if compareVectors(lo, hi) > 0 {", "if compareVectors(lo, hi) < 0 {",
		"6.1: the association shared key is the shared key, then the smaller key vector, then the larger"},
	{"auth/sha1-not-offered", "auth", asAuth,
		"if !containsU16(hm, chunk.HMACSHA1) {", "if containsU16(hm, chunk.HMACSHA1) {",
		"6.1: SHA-1 MUST be in the HMAC-ALGO we send"},
	{"auth/second-auth-accepted", "auth", asRecv,
		"\t\t\t\tif authed {\n\t\t\t\t\t// One AUTH per packet;", "\t\t\t\tif false {\n\t\t\t\t\t// One AUTH per packet;",
		"6.3: chunks after the first AUTH are covered by it (a second AUTH means nothing)"},

	// ASCONF: RFC 5061.
	{"asconf/ok-peer-list", "asconf", asASCONF,
		"\t\ta.auth.weNeed.has(chunk.TypeASCONF)", "\t\ta.auth.peerNeeds.has(chunk.TypeASCONF)",
		"RFC 5061 4.1.1: ASCONF is accepted only when we require it authenticated"},
	{"asconf/serial-greater", "asconf", asASCONF,
		"case m.Serial == s.peerSerial+1:", "case m.Serial > s.peerSerial:",
		"RFC 5061 5.2: only the next serial number is processed; others are discarded"},
	{"asconf/serial-start", "asconf", asASCONF,
		"peerSerial: uint32(a.peerTSN) - 1,", "peerSerial: uint32(a.peerTSN),",
		"RFC 5061 5.2: the first ASCONF carries the peer's Initial TSN as its serial"},
	{"asconf/params-off-by-one", "asconf", asASCONF,
		"case n > maxASCONFParams:", "case n >= maxASCONFParams:",
		"bounded work per ASCONF: maxASCONFParams requests are performed"},
	{"asconf/delete-last-lenient", "asconf", asASCONF,
		"if known && len(a.paths) <= 1 {", "if known && len(a.paths) < 1 {",
		"RFC 5061 5.2: deleting the last remaining address is refused"},
	{"asconf/delete-primary-keeps-data", "asconf", asASCONF,
		"\t\tif eng.Primary() == e {\n\t\t\tj := a.alternatePath(i)", "\t\tif eng.Primary() != e {\n\t\t\tj := a.alternatePath(i)",
		"RFC 5061 5.2: data sent to a deleted address moves to another address"},
	{"asconf/primary-index-shift", "asconf", asASCONF,
		"case a.primary > i:\n\t\ta.primary--", "case a.primary < i:\n\t\ta.primary--",
		"RFC 5061 5.2: deleting an address keeps the primary"},
	{"asconf/hb-bits-shift", "asconf", asASCONF,
		"a.pend.pathHB = low | a.pend.pathHB>>(i+1)<<i", "a.pend.pathHB = low | a.pend.pathHB>>i<<i",
		"a deleted address's pending HEARTBEAT goes nowhere; the others' follow their paths"},
	{"asconf/setprimary-unconfirmed", "asconf", asASCONF,
		"if p := &a.paths[i]; p.state == api.PathActive {", "if p := &a.paths[i]; p.state != api.PathUnconfirmed {",
		"RFC 5061 5.2 / RFC 7829: a Set Primary naming a potentially failed address does not move data to it"},
	{"asconf/ack-serial", "asconf", asASCSend,
		"m.Serial != s.serial-1", "m.Serial != s.serial",
		"RFC 5061 5.3: an ASCONF-ACK answers the outstanding ASCONF's serial"},
	{"asconf/ack-keeps-errors", "asconf", asASCSend,
		"\ta.timers.stop(timerASCONF)\n\ta.errCount = 0", "\ta.timers.stop(timerASCONF)\n\ta.errCount--",
		"RFC 5061 5.3: an ASCONF-ACK clears the association's error counter"},

	// PLPMTUD and ICMP validation: RFC 8899 4.6, RFC 9260 appendix C.
	{"pmtud/probe-nonce-offset", "pmtud", asPMTU,
		"binary.BigEndian.Uint64(c[8:]) != nonce", "binary.BigEndian.Uint64(c[12:]) != nonce",
		"RFC 8899 4.6.1: a PTB quoting a probe is used only when it carries the probe's nonce"},
	{"pmtud/quoted-probe-as-data", "pmtud", asPMTU,
		"\t\t\tprobe = true\n", "\t\t\tprobe = false\n",
		"RFC 8899 4.6.2: a PTB for a probe bounds the search; it does not lower the PLPMTU"},
	{"pmtud/tsn-not-sent-accepted", "pmtud", asPMTU,
		"tsn.LT(out) || !tsn.LT(next)", "tsn.LT(out) || tsn.GT(next)",
		"RFC 9260 appendix C: a quoted DATA chunk must carry an outstanding TSN"},
	{"pmtud/tsn-acked-accepted", "pmtud", asPMTU,
		"tsn.LT(out) || !tsn.LT(next)", "tsn.LT(out-1) || !tsn.LT(next)",
		"RFC 9260 appendix C: a quoted DATA chunk must carry an outstanding TSN"},
	{"pmtud/fresh-nonce-inverted", "pmtud", asPMTU,
		"\t\tif size != before {\n", "\t\tif size == before {\n",
		"RFC 8899 4.6.1: each probe size carries a new nonce"},
	{"pmtud/ptb-base-off-by-one", "pmtud", prober,
		"case size < p.base, size >= p.max:", "case size <= p.base, size >= p.max:",
		"RFC 8899 4.6.2: a PTB_SIZE of at least BASE_PLPMTU is used"},
	{"pmtud/ptb-max-off-by-one", "pmtud", prober,
		"case size < p.base, size >= p.max:", "case size < p.base, size > p.max:",
		"RFC 8899 4.6.2: a PTB_SIZE of at least the current MAX_PLPMTU says nothing"},
	{"pmtud/ptb-probe-size", "pmtud", prober,
		"case probe && size >= p.probe:", "case probe && size > p.probe:",
		"RFC 8899 4.6.2: a PTB quoting a probe with PTB_SIZE not below the probe is inconsistent"},
	{"pmtud/ptb-plpmtu-size", "pmtud", prober,
		"case !probe && size >= p.plpmtu:", "case !probe && size > p.plpmtu:",
		"RFC 8899 4.6.2: a PTB at or above the PLPMTU does not change it"},
	{"pmtud/icmp-tag-local", "pmtud", asNotice,
		"\t\tif vtag != a.peerTag {", "\t\tif vtag != a.localTag {",
		"RFC 9260 appendix C ICMP5: the quoted verification tag must be the peer's tag"},
	{"pmtud/icmp-init-tag-offset", "pmtud", asNotice,
		"binary.BigEndian.Uint32(quote[16:]) == a.localTag", "binary.BigEndian.Uint32(quote[20:]) == a.localTag",
		"RFC 9260 appendix C ICMP5: a quoted INIT must carry our Initiate Tag"},

	// RACK-TLP: RFC 8985.
	{"rack/tlp-no-backoff", "rack", trRack,
		"\tpto <<= k.probes\n", "\tpto <<= 0\n",
		"RFC 8985 7.2 (and our back-off): each probe after a lost one waits twice as long"},
	{"rack/tlp-max-probes", "rack", trRack,
		"k.probes >= maxProbes ||", "k.probes > maxProbes ||",
		"at most maxProbes tail loss probes before T3-rtx"},
	{"rack/tlp-one-srtt", "rack", trRack,
		"pto := max(2*s.paths.primary.srtt, tlpFloor)", "pto := max(s.paths.primary.srtt, tlpFloor)",
		"RFC 8985 7.2: PTO = 2 * SRTT"},
	{"rack/tlp-lone-every-probe", "rack", trRack,
		"if k.lone && k.probes == 0 {", "if k.lone {",
		"RFC 8985 7.2: the delayed-ACK allowance for a lone packet is added once"},
	{"rack/tlp-probes-not-reset", "rack", trSack,
		"\t\ts.paths.primary.rack.probes = 0\n", "\t\ts.paths.primary.rack.probes += 0\n",
		"RFC 8985 7.2: a new acknowledgement restarts the probe count"},
	{"rack/tlp-past-t3", "rack", trRack,
		"if !s.loss.t3.IsZero() && !at.Before(s.loss.t3) {", "if !s.loss.t3.IsZero() && at.Before(s.loss.t3) {",
		"RFC 8985 7.2: the PTO is armed only when it fires before the RTO"},
	{"rack/reo-wnd-srtt-cap", "rack", trRack,
		"if s.paths.primary.measured && w > s.paths.primary.srtt {", "if s.paths.primary.measured && w < s.paths.primary.srtt {",
		"RFC 8985 6.2 step 4: RACK.reo_wnd is capped at SRTT"},
	{"rack/probe-lowest", "rack", trRack,
		"for t := s.ledger.nextTSN - 1; t != s.ledger.cumAck; t-- {", "for t := s.ledger.cumAck + 1; t != s.ledger.nextTSN; t++ {",
		"RFC 8985 7.3: without new data the probe retransmits the highest chunk sent"},

	// ECN: RFC 9260 appendix A, RFC 3168 6.1.2.
	{"ecn/echo-oldest-mark", "ecn", asECN,
		"if lowest.GT(a.ecn.echoTSN) {", "if lowest.LT(a.ecn.echoTSN) {",
		"appendix A: with several CE marks before a CWR the ECNE keeps echoing the newest, so the CWR must cover it"},
	{"ecn/echo-highest-tsn", "ecn", asECN,
		"if !found || t.LT(lowest) {", "if !found || t.GT(lowest) {",
		"appendix A: the ECNE carries the lowest TSN of the CE-marked packet"},
	{"ecn/cwr-stops-any", "ecn", asECN,
		"if a.ecn.echo && !tsn.LT(a.ecn.echoTSN) {", "if a.ecn.echo && !tsn.LT(a.ecn.cwrTSN) {",
		"appendix A: a CWR for an older TSN than the newest CE mark does not stop the ECNEs"},
	{"ecn/cwr-never-stops", "ecn", asECN,
		"if a.ecn.echo && !tsn.LT(a.ecn.echoTSN) {", "if a.ecn.echo && tsn.LT(a.ecn.echoTSN) {",
		"appendix A: a CWR covering the echoed TSN stops the ECNEs"},
	{"ecn/cwr-oldest-tsn", "ecn", asECN,
		"if !a.ecn.cwr || tsn.GT(a.ecn.cwrTSN) {", "if !a.ecn.cwr || tsn.LT(a.ecn.cwrTSN) {",
		"appendix A: the CWR carries the TSN of the ECNE (the highest of those it answers)"},
	{"ecn/window-boundary", "ecn", trECN,
		"p.ecn.reduced, p.ecn.highest = true, s.ledger.nextTSN-1", "p.ecn.reduced, p.ecn.highest = true, s.ledger.cumAck",
		"RFC 3168 6.1.2: cwnd is reduced at most once per window of data"},
	{"ecn/reduce-every-ecne", "ecn", trECN,
		"if p.ecn.reduced && !lowest.GT(p.ecn.highest) {", "if p.ecn.reduced && lowest.GT(p.ecn.highest) {",
		"RFC 3168 6.1.2: ECNEs for the window already reduced change nothing"},
	{"ecn/first-echo-delayed", "ecn", asECN,
		"\t\ta.pend.sackNow = true\n", "\t\ta.pend.sackNow = false\n",
		"the first ECNE goes at once with a SACK (RFC 3168 6.1.3: the echo is not delayed)"},
	{"ecn/ect1-as-ce", "ecn", asECN,
		"ecn&3 == ecnCE", "ecn&1 == 1",
		"RFC 3168 5: only the CE codepoint (11) is a congestion mark; ECT(1) is not"},

	// compat notifications: <linux/sctp.h> layouts in host byte order.
	{"compat/remote-error-host-order", "compat", compatNot,
		"b = binary.BigEndian.AppendUint16(b, ev.Cause)", "b = binary.NativeEndian.AppendUint16(b, ev.Cause)",
		"sctp_remote_error.sre_error is in network byte order (__be16)"},
	{"compat/header-network-order", "compat", compatNot,
		"b = binary.NativeEndian.AppendUint16(b, uint16(t))", "b = binary.BigEndian.AppendUint16(b, uint16(t))",
		"sctp_tlv (sn_type) is in host byte order"},
	{"compat/assoc-change-cause-order", "compat", compatNot,
		"b = binary.NativeEndian.AppendUint16(b, cause)", "b = binary.BigEndian.AppendUint16(b, cause)",
		"sctp_assoc_change.sac_error is in host byte order"},
	{"compat/paddr-state-order", "compat", compatNot,
		"b = binary.NativeEndian.AppendUint32(b, state)", "b = binary.BigEndian.AppendUint32(b, state)",
		"sctp_paddr_change.spc_state is in host byte order"},
	{"compat/paddr-pf-as-unreachable", "compat", compatNot,
		"\t\t\tstate = sctpAddrPotentiallyFailed", "\t\t\tstate = sctpAddrUnreachable",
		"a potentially failed path is SCTP_ADDR_POTENTIALLY_FAILED (RFC 7829 / Linux)"},
	{"compat/send-failed-flag", "compat", compatNot,
		"if ev.MaybeDelivered {", "if !ev.MaybeDelivered {",
		"sctp_send_failed.ssf_flags: SCTP_DATA_SENT only for a message that may have been delivered"},
	{"compat/pdapi-field-order", "compat", compatNot,
		"b = binary.NativeEndian.AppendUint32(b, uint32(c.id))\n\t\tb = binary.NativeEndian.AppendUint32(b, uint32(ev.Stream))",
		"b = binary.NativeEndian.AppendUint32(b, uint32(ev.Stream))\n\t\tb = binary.NativeEndian.AppendUint32(b, uint32(c.id))",
		"sctp_pdapi_event: indication, assoc id, stream, sequence"},
	{"compat/sndrcv-ssn-order", "compat", compatNot,
		"b = binary.NativeEndian.AppendUint16(b, info.SSN)", "b = binary.BigEndian.AppendUint16(b, info.SSN)",
		"sctp_sndrcvinfo is in host byte order"},
	{"compat/paddr-length", "compat", compatNot,
		"b := header(nil, SCTP_PEER_ADDR_CHANGE, 148)", "b := header(nil, SCTP_PEER_ADDR_CHANGE, 144)",
		"sn_length is the size of struct sctp_paddr_change (148)"},
	{"compat/sndrcv-parse-ppid", "compat", compatNot,
		"PPID: e.Uint32(b[8:])", "PPID: e.Uint32(b[12:])",
		"sctp_sndrcvinfo: sinfo_ppid at offset 8"},
}
