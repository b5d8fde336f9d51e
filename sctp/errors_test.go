package sctp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/usctp/usctp/sctp/internal/assoc"
)

// AbortError matches ErrTimeout by what ended the association, never by
// its text: a user's Abort whose reason reads like a timeout is not one.
func TestAbortErrorIsByIdentity(t *testing.T) {
	user := &AbortError{Reason: assoc.ReasonUserAbort.String(), UserReason: "peer unreachable"}
	fake := &AbortError{Reason: assoc.ReasonInitTimeout.String()}
	lost := &AbortError{Reason: assoc.ReasonInitTimeout.String(), timeout: true}
	switch {
	case errors.Is(user, ErrTimeout), errors.Is(fake, ErrTimeout):
		t.Error("matched ErrTimeout by text")
	case !errors.Is(lost, ErrTimeout) || !lost.Timeout():
		t.Error("timeout not matched")
	case !errors.Is(user, ErrLocalAbort) || errors.Is(user, ErrPeerAborted) || !errors.Is(user, ErrAborted):
		t.Error("who aborted")
	}
}

// The core's errors reach the user as the public ones: the sentinel
// itself, or, when the core added detail, the same text matching it.
func TestMapErr(t *testing.T) {
	if mapErr(assoc.ErrShuttingDown) != ErrShutdown || mapErr(assoc.ErrStreamID) != ErrStreamID || mapErr(nil) != nil {
		t.Fatal("sentinels not mapped to themselves")
	}
	inner := fmt.Errorf("%w: peer said no", assoc.ErrReconfigFailed)
	got := mapErr(inner)
	if !errors.Is(got, ErrReconfigFailed) || got.Error() != inner.Error() || errors.Is(got, assoc.ErrReconfigFailed) {
		t.Fatalf("mapErr(%v) = %v", inner, got)
	}
	other := errors.New("other")
	if mapErr(other) != other {
		t.Fatal("an error of no core sentinel changed")
	}
}

// Dial's errors name the operation once: "sctp: dial ADDR: " and the
// cause without a second "sctp: ".
func TestDialErrorNoStutter(t *testing.T) {
	cause := &AbortError{Reason: assoc.ReasonInitTimeout.String(), timeout: true}
	err := error(&opError{op: "dial", addr: "192.0.2.1:5000", err: cause})
	want := "sctp: dial 192.0.2.1:5000: association aborted locally (init timeout)"
	if err.Error() != want {
		t.Fatalf("%q, want %q", err, want)
	}
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, ErrAborted) {
		t.Fatal("the cause does not unwrap")
	}
}
