package sctp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
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

// Dial's errors name the operation once, as package net's do: "dial sctp
// ADDR: " and the cause without "sctp: " (Net says it); a *net.OpError
// that unwraps to the cause, whose Timeout is the cause's, and whose Err
// is still the *AbortError for a type assertion.
func TestDialErrorNoStutter(t *testing.T) {
	cause := &AbortError{Reason: "init timeout", timeout: true}
	err := opErr("dial", Addr{IP: netip.MustParseAddr("192.0.2.1"), Port: 5000}, cause)
	want := "dial sctp 192.0.2.1:5000: association aborted locally (init timeout)"
	if err.Error() != want {
		t.Fatalf("%q, want %q", err, want)
	}
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, ErrAborted) {
		t.Fatal("the cause does not unwrap")
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "dial" || oe.Net != "sctp" || !oe.Timeout() {
		t.Fatalf("%#v: want a *net.OpError, dial sctp, a timeout", err)
	}
	if ae, ok := oe.Err.(*AbortError); !ok || ae.Reason != "init timeout" {
		t.Fatalf("Err %T, want the *AbortError", oe.Err)
	}
	if cause.Error() != "sctp: association aborted locally (init timeout)" {
		t.Fatalf("the cause itself changed: %q", cause)
	}
	// Any other error of the package loses its "sctp: " too, and keeps
	// what it answers.
	err = opErr("listen", nil, fmt.Errorf("sctp: raw IP: %w", os.ErrDeadlineExceeded))
	if want := "listen sctp: raw IP: i/o timeout"; err.Error() != want || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%q, want %q", err, want)
	}
	if err := opErr("listen", nil, slowError{}); err.Error() != "listen sctp: slow" || !err.(*net.OpError).Timeout() {
		t.Fatalf("%q: want a timeout", err)
	}
	if opErr("dial", nil, nil) != nil {
		t.Fatal("no error made one")
	}
}

// slowError is an error of the package that is a timeout.
type slowError struct{}

func (slowError) Error() string { return "sctp: slow" }
func (slowError) Timeout() bool { return true }
