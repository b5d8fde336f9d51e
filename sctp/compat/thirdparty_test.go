package sctp

// Unmodified open-source programs written for github.com/ishidawataru/sctp,
// fetched as Go modules at pinned versions through the module proxy, built
// through the replace lines of docs/compat.md, and run as separate
// processes on loopback: each server and its client exchange their
// protocol's messages over usctp.

import (
	"bufio"
	"context"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/usctp/usctp/internal/testsupport"
)

// thirdPartyModules are the programs' modules, at the versions tested.
var thirdPartyModules = []string{
	"github.com/fiorix/go-diameter/v4 v4.1.0", // Diameter (RFC 6733), S6a
	"github.com/wmnsk/go-m3ua v0.1.9",         // M3UA (RFC 4666), SIGTRAN
}

// thirdPartyPrograms are the programs built from them.
var thirdPartyPrograms = []string{
	"github.com/fiorix/go-diameter/v4/examples/s6a_server",
	"github.com/fiorix/go-diameter/v4/examples/s6a_client",
	"github.com/wmnsk/go-m3ua/examples/server",
	"github.com/wmnsk/go-m3ua/examples/client",
}

// unreachableProxy matches what the go command says when it cannot reach
// the module proxy (or may not: GOPROXY=off): an HTTP request that failed
// below HTTP (net/http's `Get "URL": cause`), or one of the causes.
var unreachableProxy = regexp.MustCompile(`Get "https?://[^"]*": |dial tcp|lookup .*(no such host|server misbehaving)|i/o timeout|` +
	`connection refused|connection reset|network is unreachable|TLS handshake timeout|proxyconnect|GOPROXY=off|` +
	`Service Unavailable|Bad Gateway|Gateway Timeout`)

// buildThirdParty fetches the programs' modules into a module of
// replaceModule and builds the programs into dir (with -race when this
// test has it); it skips the test when the module proxy cannot be reached.
func buildThirdParty(t *testing.T, dir string) {
	t.Helper()
	mod := replaceModule(t)
	env := moduleEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var get []string
	for _, m := range thirdPartyModules {
		get = append(get, strings.Replace(m, " ", "@", 1))
	}
	cmd := exec.CommandContext(ctx, "go", append([]string{"get"}, get...)...)
	cmd.Dir, cmd.Env = mod, env
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil || unreachableProxy.Match(out) {
			t.Skipf("the Go module proxy is unreachable, so the third-party programs (%s) cannot be fetched: %v\n%s",
				strings.Join(get, ", "), err, out)
		}
		t.Fatalf("go get %s: %v\n%s", strings.Join(get, " "), err, out)
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	if testsupport.RaceEnabled {
		args = append(args, "-race")
	}
	cmd = exec.CommandContext(ctx, "go", append(args, thirdPartyPrograms...)...)
	cmd.Dir, cmd.Env = mod, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", strings.Join(thirdPartyPrograms, " "), err, out)
	}
	// The binaries hold the replace module in the original's place.
	replaced, err := filepath.Abs(replaceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range thirdPartyPrograms {
		bin := filepath.Join(dir, filepath.Base(p))
		info, err := buildinfo.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range info.Deps {
			if d.Path == originalPath {
				found = d.Replace != nil && d.Replace.Path == replaced
			}
		}
		if !found {
			t.Fatalf("%s is not built with %s replaced by %s:\n%v", bin, originalPath, replaced, info)
		}
	}
}

// process is a program running in its own process, its standard output
// and error gathered line by line.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when the output has ended

	mu     sync.Mutex
	out    strings.Builder
	change chan struct{} // closed and replaced at each line
}

// startProcess starts bin with args and env; the test's end kills it.
func startProcess(t *testing.T, ctx context.Context, env []string, bin string, args ...string) *process {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &process{name: filepath.Base(bin), cmd: exec.CommandContext(ctx, bin, args...),
		done: make(chan struct{}), change: make(chan struct{})}
	p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = env, pw, pw
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.cmd.Wait()
		<-p.done
		pr.Close()
		p.checkRaces(t)
	})
	go func() {
		defer close(p.done)
		br := bufio.NewReader(pr)
		for {
			line, err := br.ReadString('\n')
			p.mu.Lock()
			p.out.WriteString(line)
			close(p.change)
			p.change = make(chan struct{})
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return p
}

// checkRaces fails the test for each data race the race detector
// reported in the process's output with usctp code in one of its stacks;
// races within the program's own code (go-m3ua v0.1.9's Listener.Accept
// writes the listener's HeartbeatInfo, shared with the connections it
// accepted before) are logged only.
func (p *process) checkRaces(t *testing.T) {
	for _, report := range strings.Split(p.output(), "==================\n") {
		if !strings.HasPrefix(report, "WARNING: DATA RACE") {
			continue
		}
		if strings.Contains(report, "github.com/usctp/usctp/") {
			t.Errorf("%s: the race detector reported a race in usctp:\n%s", p.name, report)
		} else {
			t.Logf("%s: the race detector reported a race in the program's own code:\n%s", p.name, report)
		}
	}
}

// output returns what the process wrote so far.
func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits until the process wrote want, and fails the test when it
// ended or ctx did first.
func (p *process) waitFor(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	for {
		p.mu.Lock()
		out, change := p.out.String(), p.change
		p.mu.Unlock()
		if strings.Contains(out, want) {
			return
		}
		select {
		case <-change:
		case <-p.done:
			if !strings.Contains(p.output(), want) {
				t.Fatalf("%s ended without writing %q:\n%s", p.name, want, p.output())
			}
			return
		case <-ctx.Done():
			t.Fatalf("%s did not write %q: %v\n%s", p.name, want, ctx.Err(), p.output())
		}
	}
}

// TestThirdPartyPrograms builds go-diameter's S6a server and client and
// go-m3ua's server and client, unmodified, through the replace lines, and
// runs each pair on loopback over SCTP in UDP, each process on its own, each
// pair on a UDP port of its own. Diameter: the capabilities exchange
// (CER/CEA: the client addresses its requests to the Origin-Host the
// server's CEA gave), then AIR/AIA and ULR/ULA answered with
// DIAMETER_SUCCESS. M3UA: ASPUP/ASPUP ACK and ASPAC/ASPAC ACK (the
// server's Accept returns once the ASP is active), then DATA whose
// payload the server reads.
func TestThirdPartyPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches and builds third-party programs")
	}
	bin := t.TempDir()
	buildThirdParty(t, bin)

	t.Run("Diameter", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		env := append(os.Environ(), "USCTP_TRANSPORT=udp", "USCTP_UDP_PORT="+childUDPPort(t))
		const host = "hss.usctp.test" // the server's Origin-Host
		srv := startProcess(t, ctx, env, filepath.Join(bin, "s6a_server"),
			"-network_type", "sctp", "-addr", "127.0.0.1:3868", "-pprof_addr", "", "-diam_host", host)
		srv.waitFor(t, ctx, "Starting diameter server on 127.0.0.1:3868")
		cl := startProcess(t, ctx, env, filepath.Join(bin, "s6a_client"),
			"-network_type", "sctp", "-addr", "127.0.0.1:3868", "-sleep", "0", "-watchdog", "0")
		<-cl.done
		err := cl.cmd.Wait()
		out := cl.output()
		if err != nil {
			t.Fatalf("s6a_client: %v\n%s\ns6a_server:\n%s", err, out, srv.output())
		}
		for _, want := range []*regexp.Regexp{
			regexp.MustCompile(`(?s)Sending AIR to .*Destination-Host \{[^}]*DiameterIdentity\{` + regexp.QuoteMeta(host) + `\}`),
			regexp.MustCompile(`Unmarshaled Authentication-Information Answer:\n.*ResultCode:0x7d1`),
			regexp.MustCompile(`Unmarshaled UL Answer:\n.*ResultCode:0x7d1`),
		} {
			if !want.MatchString(out) {
				t.Errorf("s6a_client's output does not match %s:\n%s", want, out)
			}
		}
	})

	t.Run("M3UA", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		env := append(os.Environ(), "USCTP_TRANSPORT=udp", "USCTP_UDP_PORT="+childUDPPort(t))
		srv := startProcess(t, ctx, env, filepath.Join(bin, "server"), "-addr", "127.0.0.1:2905")
		srv.waitFor(t, ctx, "Waiting for connection on: 127.0.0.1:2905")
		const data = "7573637470" // "usctp"
		cl := startProcess(t, ctx, env, filepath.Join(bin, "client"), "-addr", "127.0.0.1:2905", "-data", data)
		srv.waitFor(t, ctx, "Connected with: 127.0.0.1:")
		srv.waitFor(t, ctx, "Read: "+data)
		cl.waitFor(t, ctx, "Sent: "+data)
	})
}
