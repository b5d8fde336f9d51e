package sctp

import (
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/usctp/usctp/sctp/internal/api"
	"github.com/usctp/usctp/sctp/internal/assoc"
	"github.com/usctp/usctp/sctp/internal/transfer"
)

// AbortError matches ErrTimeout by what ended the association, never by
// its text: a user's Abort whose reason reads like a timeout is not one.
func TestAbortErrorIsByIdentity(t *testing.T) {
	user := &AbortError{Reason: "user abort", UserReason: "peer unreachable"}
	fake := &AbortError{Reason: "init timeout"}
	lost := &AbortError{Reason: "init timeout", timeout: true}
	switch {
	case errors.Is(user, ErrTimeout), errors.Is(fake, ErrTimeout):
		t.Error("matched ErrTimeout by text")
	case !errors.Is(lost, ErrTimeout) || !lost.Timeout():
		t.Error("timeout not matched")
	case !errors.Is(user, ErrLocalAbort) || errors.Is(user, ErrPeerAborted) || !errors.Is(user, ErrAborted):
		t.Error("who aborted")
	}
}

// The core's errors reach the user as the public ones: the same values,
// so errors.Is matches them also when the core (or its transfer engine)
// wrapped one to add detail; the core's ErrClosed is net.ErrClosed.
func TestCoreErrorsArePublic(t *testing.T) {
	if publicErr(api.ErrShutdown) != ErrShutdown || publicErr(transfer.ErrStreamID) != ErrStreamID || publicErr(nil) != nil {
		t.Fatal("sentinels not the public ones")
	}
	if publicErr(assoc.ErrClosed) != ErrClosed || !errors.Is(publicErr(assoc.ErrClosed), net.ErrClosed) {
		t.Fatal("the core's ErrClosed is not ErrClosed")
	}
	inner := fmt.Errorf("%w: peer said no", api.ErrReconfigFailed)
	got := publicErr(inner)
	if !errors.Is(got, ErrReconfigFailed) || got.Error() != inner.Error() {
		t.Fatalf("publicErr(%v) = %v", inner, got)
	}
	other := errors.New("other")
	if publicErr(other) != other {
		t.Fatal("an error of no core sentinel changed")
	}
}

// Dial's errors name the operation once: "sctp: dial ADDR: " and the
// cause without a second "sctp: ".
func TestDialErrorNoStutter(t *testing.T) {
	cause := &AbortError{Reason: "init timeout", timeout: true}
	err := error(&opError{op: "dial", addr: "192.0.2.1:5000", err: cause})
	want := "sctp: dial 192.0.2.1:5000: association aborted locally (init timeout)"
	if err.Error() != want {
		t.Fatalf("%q, want %q", err, want)
	}
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, ErrAborted) {
		t.Fatal("the cause does not unwrap")
	}
}
