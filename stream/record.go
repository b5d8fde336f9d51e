package stream

import "strconv"

// State is the state of an outbound stream (RFC 6525).
type State uint8

const (
	// Closed: the stream may not carry data; it was reset or never opened.
	// It is the zero State, so a record that was never initialised cannot
	// send.
	Closed State = iota
	// Open: the stream carries data.
	Open
	// AddPending: the stream was added by an Add Outgoing Streams request
	// (RFC 6525 section 4.5) that the peer has not answered yet.
	AddPending
	// ResetPending: an Outgoing SSN Reset request (RFC 6525 section 4.1)
	// for the stream has not been answered yet.
	ResetPending
)

var stateNames = [...]string{"Closed", "Open", "AddPending", "ResetPending"}

// String returns the state's name.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Out is the record of one outbound stream (16 bytes, no pointers),
// reached through Table.Out.
//
// With DATA, only MID is used and its low 16 bits are the stream's next SSN
// (see TakeSSN). With I-DATA (RFC 8260), MID numbers ordered messages and
// MIDUO unordered ones.
type Out struct {
	// MID is the MID (or, in its low 16 bits, the SSN) the next ordered
	// message gets.
	MID MID
	// MIDUO is the MID the next unordered message gets (I-DATA only).
	MIDUO MID
	// sideGen and sideIdx name the side object: sideIdx is its slot + 1
	// (0: none) and sideGen the slot's generation when it was created.
	sideGen uint32
	sideIdx uint16
	// State is whether the stream may send (see State).
	State State
	_     uint8
}

// TakeMID returns the MID for the next message, ordered or unordered, and
// advances the counter (I-DATA).
func (o *Out) TakeMID(unordered bool) MID {
	if unordered {
		m := o.MIDUO
		o.MIDUO = m.Next()
		return m
	}
	m := o.MID
	o.MID = m.Next()
	return m
}

// TakeSSN returns the SSN for the next ordered message and advances it
// (DATA). Unordered DATA chunks carry no meaningful SSN.
func (o *Out) TakeSSN() SSN {
	s := o.MID.SSN()
	o.MID = MID(s.Next())
	return s
}

// ResetSequence restarts the stream's numbering at 0, as an Outgoing SSN
// Reset (RFC 6525 section 5.2.2) or an SSN/TSN Reset requires.
func (o *Out) ResetSequence() { o.MID, o.MIDUO = 0, 0 }

// HasSide reports whether the stream has a side object.
func (o *Out) HasSide() bool { return o.sideIdx != 0 }

// In is the record of one inbound stream (24 bytes, no pointers), reached
// through Table.In.
//
// With DATA, MID's low 16 bits are the next expected SSN. With I-DATA,
// partial delivery (RFC 8260 section 2.3) is per stream and per
// ordered/unordered: PD with MID and FSN for the ordered message being
// delivered in parts, PDUO with MIDUO and FSNUO for the unordered one.
type In struct {
	// MID is the MID (or, in its low 16 bits, the SSN) of the next ordered
	// message to deliver.
	MID MID
	// MIDUO is the MID of the unordered message in partial delivery.
	MIDUO MID
	// FSN is the next fragment to deliver of the ordered message in
	// partial delivery.
	FSN FSN
	// FSNUO is the next fragment to deliver of the unordered message in
	// partial delivery.
	FSNUO FSN
	// sideGen and sideIdx name the side object, as in Out.
	sideGen uint32
	sideIdx uint16
	// PD: an ordered message (MID) is being delivered in parts.
	PD bool
	// PDUO: an unordered message (MIDUO) is being delivered in parts.
	PDUO bool
}

// NextSSN returns the SSN of the next ordered message to deliver (DATA).
func (in *In) NextSSN() SSN { return in.MID.SSN() }

// ResetSequence restarts the stream's expected numbering at 0 and ends any
// partial delivery, as an incoming SSN reset requires.
func (in *In) ResetSequence() {
	in.MID, in.MIDUO, in.FSN, in.FSNUO, in.PD, in.PDUO = 0, 0, 0, 0, false, false
}

// HasSide reports whether the stream has a side object.
func (in *In) HasSide() bool { return in.sideIdx != 0 }
