package perf

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestServeBadClients sends the netserver what a broken or hostile client might: it
// answers each with an error message and closes that connection, and keeps serving.
func TestServeBadClients(t *testing.T) {
	addr := startServer(t)
	huge := strings.Repeat("x", maxCtlLine+64<<10)
	cases := []struct {
		name, send, want string
	}{
		{"not json", "hello\n", "bad control message"},
		{"wrong op", `{"op":"stop","sent":5}` + "\n", "expected start"},
		{"no params", `{"op":"start"}` + "\n", "expected start"},
		{"unknown test", `{"op":"start","params":{"test":"UDP_RR"}}` + "\n", "unknown test"},
		{"unknown stack", `{"op":"start","params":{"stack":"quic"}}` + "\n", "unknown stack"},
		{"huge buffer", `{"op":"start","params":{"config":{"max_msg":4611686018427387904}}}` + "\n", "at most"},
		{"huge response", `{"op":"start","params":{"test":"SCTP_RR","resp_size":1099511627776}}` + "\n", "at most"},
		{"too many assocs", `{"op":"start","params":{"assocs":1000000}}` + "\n", "at most"},
		{"fast interims", `{"op":"start","params":{"interim_ns":1}}` + "\n", "interim"},
		{"endless line", huge, "longer than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(20 * time.Second))
			go io.WriteString(nc, c.send) // the server may stop reading before the end
			line, err := bufio.NewReader(nc).ReadBytes('\n')
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			var m ctlMsg
			if err := json.Unmarshal(line, &m); err != nil || m.Op != "error" || !strings.Contains(m.Err, c.want) {
				t.Fatalf("answer %q (%v); want an error containing %q", line, err, c.want)
			}
			if _, err := nc.Read(make([]byte, 1)); err == nil {
				t.Error("the server kept the connection open after its error")
			}
		})
	}
	// The server still runs tests.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := Run(ctx, addr, Params{Test: RR, Duration: 100 * time.Millisecond}, RunOptions{})
	if err != nil || r.Transactions == 0 {
		t.Fatalf("run after the bad clients: %v, %d transactions", err, r.Transactions)
	}
}

// FuzzControl feeds the control channel's reader and the parameter checks arbitrary bytes:
// no panic, and parameters that pass Normalize are within its limits.
func FuzzControl(f *testing.F) {
	for _, s := range []string{
		`{"op":"start","params":{"test":"SCTP_STREAM_MANY","msg_size":1452,"assocs":2,"config":{"transport":"udp","streams":8,"weights":[1,2,3]}}}` + "\n",
		`{"op":"start","params":{"test":"SCTP_RR","req_size":1,"resp_size":1,"interim_ns":1000000000}}` + "\n",
		`{"op":"stop","sent":12345}` + "\n",
		`{"op":"error","err":"x"}` + "\n",
		`{"op":"start","params":{"config":{"max_msg":-1,"sndbuf":-5}}}`,
		"\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, z := net.Pipe()
		defer a.Close()
		go func() { z.Write(b); z.Close() }()
		ctl := newCtl(a)
		for range 4 {
			m, err := ctl.recv()
			if err != nil {
				if m != nil {
					t.Fatalf("message %+v with error %v", m, err)
				}
				return
			}
			if m.Params == nil {
				continue
			}
			p := *m.Params
			if err := p.Normalize(); err != nil {
				continue
			}
			if err := checkLimits(&p); err != nil {
				t.Fatalf("%+v passed Normalize: %v", p, err)
			}
		}
	})
}

// checkLimits restates Normalize's promises.
func checkLimits(p *Params) error {
	c := &p.Config
	switch {
	case p.Test != Stream && p.Test != StreamMany && p.Test != RR && p.Test != RRMany:
		return fmt.Errorf("test %q", p.Test)
	case c.Streams < 1 || c.Streams > 65535:
		return fmt.Errorf("streams %d", c.Streams)
	case p.Assocs < 1 || p.Assocs > MaxAssocs:
		return fmt.Errorf("assocs %d", p.Assocs)
	case c.MaxMsg < 1 || c.MaxMsg > MaxMessageSize:
		return fmt.Errorf("max_msg %d", c.MaxMsg)
	case p.IsStream() && (p.MsgSize < 1 || p.MsgSize > c.MaxMsg):
		return fmt.Errorf("msg_size %d", p.MsgSize)
	case !p.IsStream() && (p.ReqSize < 1 || p.RespSize < 1 || max(p.ReqSize, p.RespSize) > c.MaxMsg):
		return fmt.Errorf("req/resp %d/%d", p.ReqSize, p.RespSize)
	case c.SndBuf < 0 || c.SndBuf > MaxBuffer || c.RcvBuf < 0 || c.RcvBuf > MaxBuffer:
		return fmt.Errorf("buffers %d/%d", c.SndBuf, c.RcvBuf)
	case p.Interim < 0 || p.Interim > 0 && p.Interim < MinInterim:
		return fmt.Errorf("interim %v", p.Interim)
	case len(c.Weights) > c.Streams || len(c.Prios) > c.Streams:
		return errors.New("per-stream values")
	case p.Duration <= 0:
		return fmt.Errorf("duration %v", p.Duration)
	}
	return nil
}

// refusingStack is a stack that says it cannot run here; any use of it
// beyond Check is a test failure.
type refusingStack struct{ t testing.TB }

func (refusingStack) Name() string    { return "refusing" }
func (refusingStack) InProcess() bool { return true }
func (s refusingStack) Check(*Config) error {
	return fmt.Errorf("refusing: %w here", ErrUnsupported)
}
func (s refusingStack) Listen(context.Context, string, *Config) (Listener, error) {
	s.t.Error("Listen on a stack that failed its check")
	return nil, errors.New("refused")
}
func (s refusingStack) Dial(context.Context, string, *Config) (Conn, error) {
	s.t.Error("Dial on a stack that failed its check")
	return nil, errors.New("refused")
}

// TestCompareChecksFirst: a stack that cannot run here fails -compare
// before the first round of the others, not after them.
func TestCompareChecksFirst(t *testing.T) {
	Register(refusingStack{t})
	t.Cleanup(func() {
		stacksMu.Lock()
		delete(stacks, "refusing")
		stacksMu.Unlock()
	})
	addr := startServer(t)
	runs := 0
	_, err := Compare(t.Context(), addr, Params{Duration: 100 * time.Millisecond}, []string{"usctp", "refusing"}, 3,
		func(int, *Result) { runs++ })
	if !errors.Is(err, ErrUnsupported) || runs != 0 {
		t.Errorf("Compare: %v after %d runs; want ErrUnsupported before any", err, runs)
	}
}
