//go:build linux

package sctp_test

// Browsers as peers: headless Chromium (dcSCTP) and headless Firefox
// (usrsctp) talk data channels to testdata/browserpeer, a pion/webrtc
// program built with the replace lines, so on usctp. The program serves
// the page and the signalling on loopback; the page takes its offer,
// posts the answer, runs the scenarios both ways and posts what it
// checked. Browsers reach out to the network on their own (updates,
// telemetry, safe browsing), so the program and the browser run in a
// network namespace of their own whose one interface is loopback.

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const browserPeer = "testdata/browserpeer"

// The scenarios testdata/browserpeer runs, each both ways: b2u (the
// browser sends, usctp receives) and u2b.
var browserScenarios = []string{"reliable", "rexmit0", "lifetime", "maxsize", "channels256", "close"}

// browser is a browser the tests drive.
type browser struct {
	name, command string
	// args returns the command line opening url with a throw-away
	// profile in dir.
	args func(t *testing.T, dir, url string) []string
}

var browsers = []browser{
	{"chromium", "chromium", chromiumArgs},
	{"firefox", "firefox-esr", firefoxArgs},
}

func chromiumArgs(t *testing.T, dir, url string) []string {
	return []string{
		"--headless=new", "--no-sandbox", "--user-data-dir=" + dir,
		// Host candidates on loopback, by address rather than mDNS name.
		"--allow-loopback-in-peer-connection",
		"--disable-features=WebRtcHideLocalIpsWithMdns",
		"--no-first-run", "--no-default-browser-check", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-breakpad", "--disable-gpu",
		// A background page's timers are not throttled.
		"--disable-background-timer-throttling", "--disable-renderer-backgrounding",
		url,
	}
}

// firefoxPrefs is the throw-away profile's user.js: loopback ICE
// candidates by address, and no first-run pages, telemetry, updates or
// other background traffic.
const firefoxPrefs = `user_pref("media.peerconnection.ice.loopback", true);
user_pref("media.peerconnection.ice.obfuscate_host_addresses", false);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.aboutwelcome.enabled", false);
user_pref("startup.homepage_welcome_url", "about:blank");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("toolkit.telemetry.enabled", false);
user_pref("toolkit.telemetry.unified", false);
user_pref("toolkit.telemetry.server", "");
user_pref("app.update.enabled", false);
user_pref("app.normandy.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("browser.safebrowsing.downloads.enabled", false);
user_pref("dom.min_background_timeout_value", 4);
`

func firefoxArgs(t *testing.T, dir, url string) []string {
	if err := os.WriteFile(filepath.Join(dir, "user.js"), []byte(firefoxPrefs), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"-headless", "-no-remote", "-profile", dir, url}
}

// browsersRequired reports whether the browser tests must run: in CI
// (CI=true) and under .ci/test.sh (USCTP_BROWSERS=required), which
// installs the browsers.
func browsersRequired() bool {
	return os.Getenv("CI") == "true" || os.Getenv("USCTP_BROWSERS") == "required"
}

// unavailable ends a test that cannot run its browser: it fails where
// the browsers are required, and skips, saying why, elsewhere.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if browsersRequired() {
		t.Fatalf("%s (the browser tests are required here and never skip)", msg)
	}
	t.Skip(msg)
}

// needRoot ends the test, as unavailable does, unless it runs as root
// with the ip command (for the network namespace).
func needRoot(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds pion/webrtc and starts browsers")
	}
	if os.Geteuid() != 0 {
		unavailable(t, "the browser tests need root, for a loopback-only network namespace")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		unavailable(t, "the browser tests need the ip command: apt-get install iproute2")
	}
}

// needBrowser returns the path of b's command, or ends the test as
// unavailable does.
func needBrowser(t *testing.T, b browser) string {
	t.Helper()
	path, err := exec.LookPath(b.command)
	if err != nil {
		unavailable(t, "%s not installed: apt-get install --no-install-recommends chromium firefox-esr (.ci/test.sh does)", b.command)
	}
	return path
}

var netnsSeq atomic.Int32

// loopbackNetns creates a network namespace whose one interface is
// loopback, up, with the default route through it from 127.0.0.1, and
// removes it when the test ends. Firefox offers, unless the page may use
// the camera or microphone, only the local address of its default route
// as an ICE candidate; with no default route it has none.
func loopbackNetns(t *testing.T) string {
	t.Helper()
	ns := fmt.Sprintf("usctp-browser-%d-%d", os.Getpid(), netnsSeq.Add(1))
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add %s: %v\n%s", ns, err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"route", "add", "default", "dev", "lo", "src", "127.0.0.1"},
	} {
		if out, err := exec.Command("ip", append([]string{"-n", ns}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip -n %s %s: %v\n%s", ns, strings.Join(args, " "), err, out)
		}
	}
	return ns
}

// inNetns returns a command running name with args in network namespace
// ns, in a process group of its own that is killed, whole, when ctx ends
// or the command is waited for.
func inNetns(ctx context.Context, ns, home, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, name}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_CACHE_HOME=" + home}
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		switch k {
		case "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS":
		default:
			env = append(env, e)
		}
	}
	cmd.Env = env
	return cmd
}

// tailBuffer keeps the last lines written to it.
type tailBuffer struct {
	mu    sync.Mutex
	lines []string
	part  string
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.part + string(p)
	lines := strings.Split(s, "\n")
	b.part = lines[len(lines)-1]
	b.lines = append(b.lines, lines[:len(lines)-1]...)
	if len(b.lines) > 60 {
		b.lines = b.lines[len(b.lines)-60:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(append(slices.Clone(b.lines), b.part), "\n")
}

// browserRun is what one run of the program with a browser printed.
type browserRun struct {
	checks map[string]string // check name: "ok ..." or "FAIL ..."
	lines  []string          // everything the program printed
	err    error             // the program's exit
	pcaps  []string          // usctp's captures
}

// runWithBrowser runs bin (testdata/browserpeer built) with args and the
// browser b, both in a new loopback-only network namespace, and returns
// what the program printed once it exits.
func runWithBrowser(t *testing.T, b browser, path, bin string, timeout time.Duration, args ...string) browserRun {
	t.Helper()
	ns := loopbackNetns(t)
	home := t.TempDir()
	pcapDir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	peer := inNetns(ctx, ns, home, bin, args...)
	peer.Env = append(peer.Env, "USCTP_PCAP_DIR="+pcapDir)
	stdout, err := peer.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var peerErr tailBuffer
	peer.Stderr = &peerErr
	if err := peer.Start(); err != nil {
		t.Fatal(err)
	}
	var run browserRun
	run.checks = map[string]string{}
	sc := bufio.NewScanner(stdout)
	var url string
	for sc.Scan() {
		run.lines = append(run.lines, sc.Text())
		if u, ok := strings.CutPrefix(sc.Text(), "url "); ok {
			url = u
			break
		}
	}
	if url == "" {
		peer.Wait()
		t.Fatalf("the program printed no URL:\n%s\n%s", strings.Join(run.lines, "\n"), peerErr.String())
	}

	profile := t.TempDir()
	br := inNetns(ctx, ns, home, path, b.args(t, profile, url)...)
	var brOut tailBuffer
	br.Stdout, br.Stderr = &brOut, &brOut
	start := time.Now()
	if err := br.Start(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer func() {
		// The browser stays until it is killed, with every process it
		// started (its process group).
		syscall.Kill(-br.Process.Pid, syscall.SIGKILL)
		br.Wait()
	}()

	for sc.Scan() {
		l := sc.Text()
		run.lines = append(run.lines, l)
		if rest, ok := strings.CutPrefix(l, "check "); ok {
			name, result, _ := strings.Cut(rest, " ")
			run.checks[name] = result
		}
	}
	io.Copy(io.Discard, stdout)
	run.err = peer.Wait()
	t.Logf("%s: the program ran %v", b.name, time.Since(start).Round(100*time.Millisecond))
	if run.err != nil || ctx.Err() != nil {
		t.Errorf("the program with %s: %v (%v)\n--- its output:\n%s\n--- its stderr (last lines):\n%s\n--- %s (last lines):\n%s",
			b.name, run.err, ctx.Err(), strings.Join(run.lines, "\n"), peerErr.String(), b.name, brOut.String())
	}
	run.pcaps, _ = filepath.Glob(filepath.Join(pcapDir, "association-*.pcap"))
	return run
}

// TestBrowser runs testdata/browserpeer on usctp against headless
// Chromium and headless Firefox: data channels both ways, reliable
// ordered 16 MiB, unordered with maxRetransmits 0 and with
// maxPacketLifeTime, a message of the browser's max-message-size (capped
// at 8 MiB: Firefox says 1 GiB), 256 channels, channels closed from
// either side, every byte checked; usctp's capture is clean in tshark.
func TestBrowser(t *testing.T) {
	needRoot(t)
	bin := buildProgramIn(t, browserPeer, true)
	for _, b := range browsers {
		t.Run(b.name, func(t *testing.T) {
			path := needBrowser(t, b)
			run := runWithBrowser(t, b, path, bin, 150*time.Second, "-timeout", "120s")
			for _, l := range run.lines {
				if strings.HasPrefix(l, "browser ") || strings.HasPrefix(l, "sctp ") {
					t.Log(l)
				}
			}
			for _, s := range browserScenarios {
				for _, dir := range []string{"b2u", "u2b"} {
					t.Run(s+"/"+dir, func(t *testing.T) {
						for _, side := range []string{"send", "recv"} {
							r, ok := run.checks[s+"/"+dir+"/"+side]
							switch {
							case !ok:
								t.Errorf("%s: no report", side)
							case !strings.HasPrefix(r, "ok"):
								t.Errorf("%s: %s", side, r)
							default:
								t.Logf("%s: %s", side, strings.TrimPrefix(r, "ok "))
							}
						}
					})
				}
			}
			if r, ok := run.checks["unexpected"]; ok {
				t.Errorf("unexpected: %s", r)
			}
			if len(run.pcaps) != 1 {
				t.Fatalf("captures %v, want usctp's one association's", run.pcaps)
			}
			checkPcapClean(t, run.pcaps[0])
			if t.Failed() {
				keepPcap(t, run.pcaps[0])
			}
		})
	}
}

// checkPcapClean fails the test if tshark finds a malformed packet, an
// error in its expert analysis, or a bad checksum other than the zero
// checksum of RFC 9653 (which tshark 4.0 does not know) in the capture.
// DCEP messages (PPID 50) are decoded as plain data: pion/datachannel pads
// its DATA_CHANNEL_ACK to 4 bytes (RFC 8832 section 5.2 makes it 1),
// which Wireshark's dissector calls malformed, and that is pion's code
// above SCTP, the same on pion/sctp. SCTP reassembly is off: the
// payloads are test bytes, and reassembling megabyte messages triples
// tshark's time.
func checkPcapClean(t *testing.T, path string) {
	t.Helper()
	n, err := pcapRecords(path)
	if err != nil || n == 0 {
		t.Fatalf("capture %s: %d packets, %v", path, n, err)
	}
	if _, err := exec.LookPath("tshark"); err != nil {
		if browsersRequired() {
			t.Fatal("tshark not installed")
		}
		t.Logf("tshark not installed: %s not checked", path)
		return
	}
	cmd := exec.Command("tshark", "-n", "-r", path, "-d", "udp.port==5000,sctp", "-d", "sctp.ppi==50,data",
		"-o", "sctp.checksum:CRC-32C", "-o", "sctp.reassembly:FALSE",
		"-Y", `!sctp || _ws.malformed || _ws.expert.severity == "Error"`,
		"-T", "fields", "-E", "separator=/t", "-e", "frame.number", "-e", "sctp.checksum", "-e", "_ws.expert.message")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // tshark wants a profile directory
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark: %v: %s", err, stderr.String())
	}
	var bad []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l == "" {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) == 3 && f[1] == "0x00000000" && onlyBadChecksum(f[2]) {
			continue // a zero checksum
		}
		bad = append(bad, l)
	}
	if len(bad) > 0 {
		t.Errorf("tshark finds packets that are not SCTP, malformed, with errors or with bad checksums in %s (frame, checksum, expert messages):\n%s",
			path, strings.Join(bad[:min(20, len(bad))], "\n"))
	}
	t.Logf("tshark: %d packets in usctp's capture, all SCTP, none malformed, no errors", n)
}

// onlyBadChecksum reports whether tshark's expert messages of a packet
// (comma-separated) all say its checksum is bad.
func onlyBadChecksum(msgs string) bool {
	for _, m := range strings.Split(msgs, ",") {
		if !strings.HasPrefix(m, "Bad checksum") {
			return false
		}
	}
	return true
}

// pcapRecords returns the number of packets in a pcap file.
func pcapRecords(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if len(b) < 24 {
		return 0, fmt.Errorf("%d bytes", len(b))
	}
	var order binary.ByteOrder = binary.LittleEndian
	if binary.BigEndian.Uint32(b) == 0xa1b2c3d4 || binary.BigEndian.Uint32(b) == 0xa1b23c4d {
		order = binary.BigEndian
	}
	n := 0
	for off := 24; off < len(b); n++ {
		if off+16 > len(b) {
			return n, fmt.Errorf("a record header cut at byte %d", off)
		}
		off += 16 + int(order.Uint32(b[off+8:]))
	}
	return n, nil
}

// keepPcap copies the capture of a test that failed to USCTP_KEEP_PCAPS,
// a directory, when set.
func keepPcap(t *testing.T, path string) {
	dir := os.Getenv("USCTP_KEEP_PCAPS")
	if dir == "" {
		return
	}
	b, err := os.ReadFile(path)
	if err == nil {
		dst := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "-")+".pcap")
		if err = os.WriteFile(dst, b, 0o644); err == nil {
			t.Logf("capture kept: %s", dst)
		}
	}
}

var throughputRE = regexp.MustCompile(`throughput: ([0-9.]+) MB/s`)

// TestBrowserThroughput measures what Chromium receives from
// testdata/browserpeer sending 64 KiB messages paced by the buffered
// amount, with the program on usctp and on pion/sctp, alternating runs,
// and reports the medians. It runs only when USCTP_BROWSER_BENCH is set to
// the length of each run (USCTP_BROWSER_BENCH_RUNS runs of each, 5 by
// default):
//
//	cd sctp/compat/pion && USCTP_BROWSER_BENCH=10s go test -run TestBrowserThroughput -v .
func TestBrowserThroughput(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("USCTP_BROWSER_BENCH"))
	if err != nil || d <= 0 {
		t.Skip("set USCTP_BROWSER_BENCH to the length of a run (for example 10s)")
	}
	if raceEnabled {
		t.Skip("a measurement under the race detector means nothing")
	}
	needRoot(t)
	b := browsers[0]
	path := needBrowser(t, b)
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("USCTP_BROWSER_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	bins := map[string]string{"usctp": buildProgramIn(t, browserPeer, true), "pion/sctp": buildProgramIn(t, browserPeer, false)}
	got := map[string][]float64{}
	for i := range runs {
		for _, name := range []string{"usctp", "pion/sctp"} {
			run := runWithBrowser(t, b, path, bins[name], d+90*time.Second, "-bench", d.String())
			var m []string
			for _, l := range run.lines {
				if m = throughputRE.FindStringSubmatch(l); m != nil {
					break
				}
			}
			if run.err != nil || m == nil {
				t.Fatalf("%s run %d: %v\n%s", name, i+1, run.err, strings.Join(run.lines, "\n"))
			}
			v, _ := strconv.ParseFloat(m[1], 64)
			got[name] = append(got[name], v)
			t.Logf("%s to %s run %d: %.1f MB/s", name, b.name, i+1, v)
		}
	}
	median := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[len(v)/2]
	}
	u, p := median(got["usctp"]), median(got["pion/sctp"])
	t.Logf("to %s, medians of %d runs of %v: usctp %.1f MB/s, pion/sctp %.1f MB/s (%.2fx)", b.name, runs, d, u, p, u/p)
}
