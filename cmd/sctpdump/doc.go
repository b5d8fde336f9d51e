// Command sctpdump prints the SCTP chunks of a pcap or pcapng capture, one
// line per chunk, in a stable format meant for people and for grep.
//
// Usage:
//
//	sctpdump [-udp-port 9899[,PORT...]] [-udp-detect=true] [-stats] [-zero-checksum] [-no-checksum] FILE
//
// It reads SCTP directly over IPv4 or IPv6 (protocol 132) and SCTP over UDP
// (RFC 6951), on Ethernet (with VLAN tags), Linux cooked (SLL, SLL2), raw
// IP and BSD loopback links. Other packets and IP fragments are skipped.
//
// A UDP datagram is taken for SCTP when either of its ports is one of
// -udp-port (default 9899, IANA's port; 0 for none), or, with -udp-detect
// (on by default), when its payload is an SCTP packet whose CRC32c
// checksum is valid, whatever its ports: usctp's clients and the kernel's
// often encapsulate from ephemeral ports, and a datagram of another
// protocol passes the checksum about once in 2^32. A datagram recognised
// that way is decoded like any other and counted as udp_detected in
// -stats. With -udp-detect=false, only -udp-port's datagrams are decoded,
// so a packet with a bad checksum on such a port is reported MALFORMED
// while one on another port is skipped.
//
// # Line format
//
// Every chunk of every SCTP packet gives one line:
//
//	PKT NAME vtag=0xTAG FIELD=VALUE ...
//
// PKT is the packet's number in the file, counted from 1 over all packets
// (as Wireshark counts frames). NAME is the chunk type's RFC name in upper
// case with hyphens (DATA, INIT-ACK, I-DATA, RE-CONFIG, ...), or
// UNKNOWN-0xNN. vtag is the common header's verification tag. The fields
// follow, space-separated KEY=VALUE pairs; no value contains a space.
// Parameters and error causes inside a chunk each start with param=NAME or
// cause=NAME and are followed by their own fields. Lists are
// comma-separated, "-" when empty. The fields are:
//
//	DATA              tsn sid ssn ppid flags len
//	I-DATA            tsn sid mid fsn [ppid, on the first fragment] flags len
//	INIT, INIT-ACK    init_tag a_rwnd os mis init_tsn, then parameters
//	SACK              cum_tsn a_rwnd gaps=START-END,... dups=TSN,...
//	NR-SACK           all_nr cum_tsn a_rwnd gaps nr_gaps dups
//	HEARTBEAT(-ACK)   parameters (param=HEARTBEAT-INFO len=N)
//	ABORT             t=0|1, then causes
//	ERROR             causes
//	SHUTDOWN          cum_tsn
//	SHUTDOWN-COMPLETE t=0|1
//	COOKIE-ECHO       cookie_len
//	ECNE, CWR         tsn
//	AUTH              key_id hmac_id hmac_len
//	FORWARD-TSN       new_cum_tsn streams=SID:SSN,...
//	I-FORWARD-TSN     new_cum_tsn streams=SID:MID[:u],...
//	ASCONF            serial addr, then parameters
//	ASCONF-ACK        serial, then parameters
//	RE-CONFIG         parameters
//	PAD               len
//	UNKNOWN-0xNN      flags len action=stop|stop-report|skip|skip-report
//
// Numbers are decimal except vtag, init_tag, adaptation code= and the flags
// of unknown chunks, which are hexadecimal with 0x. flags of DATA and
// I-DATA are the letters U (unordered), B (beginning),
// E (end), I (immediate), or "-". len is the user data length. Parameters
// carry: addr= (IPV4-ADDRESS, IPV6-ADDRESS), len= (STATE-COOKIE,
// HEARTBEAT-INFO, RANDOM, PADDING), types= (SUPPORTED-EXTENSIONS,
// CHUNK-LIST), ids= (SUPPORTED-ADDRESS-TYPES, REQUESTED-HMAC-ALGORITHM),
// increment_ms= (COOKIE-PRESERVATIVE), name= (HOST-NAME-ADDRESS), edmid=
// (ZERO-CHECKSUM-ACCEPTABLE), code= (ADAPTATION-LAYER-INDICATION), type=
// (UNRECOGNIZED-PARAMETER), corr= and addr= or causes (ASCONF parameters),
// req_seq= resp_seq= last_tsn= streams= result= sender_next_tsn=
// receiver_next_tsn= new_streams= (RE-CONFIG parameters, result one of
// success-nothing, success-performed, denied, wrong-ssn, in-progress,
// bad-seq, pending). Causes carry sid=, types=, staleness_us=, tsn=,
// hmac_id=, type= (the unrecognized chunk), reason= (a quoted Go string
// with spaces written \x20) or params=NAME,... . Unknown parameters and
// causes show len= and, for parameters, action=.
//
// # Malformed packets
//
// A chunk that does not parse gets its line with the fields decoded before
// the fault and malformed=REASON as its last field; REASON runs to the end
// of the line and may contain spaces. A packet whose checksum is wrong, or
// whose chunk list breaks so that no chunk name can be given, is one line:
//
//	PKT MALFORMED [vtag=0xTAG] malformed=REASON
//
// A packet with a bad checksum is not decoded further (a receiver discards
// it); -no-checksum skips the check, and -zero-checksum accepts a zero
// checksum field (RFC 9653). Decoding always continues with the next
// packet. The exit status is 1 when anything was malformed, 2 for a usage
// or file error, and 0 otherwise.
//
// # Statistics
//
// With -stats, after the chunk lines:
//
//	stats packets=N sctp=N chunks=N malformed=N skipped=N udp_detected=N
//	stats chunk=NAME count=N     (one line per chunk type seen, by type number)
package main
