// Command quicperf measures one quic-go stream over loopback, the
// reference docs/PERFORMANCE.md sets beside usctp and Linux TCP: a client
// writes messages of -m bytes on one bidirectional stream for -l seconds
// to a server in a child process, which reads them and reports what it
// received. QUIC encrypts every packet (TLS 1.3, AES-128-GCM on CPUs with
// AES-NI), so the figure is an encrypted transport's, not a bare one's.
//
// It is a module of its own so that quic-go is not a dependency of usctp:
//
//	cd perf/bench/quicperf && go run . -l 3
//
// The output is one line: Mbit/s received, and the CPU seconds (user,
// system) of the sending and the receiving process.
package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/quic-go/quic-go"
)

// alpn is the application protocol both ends name in the handshake.
const alpn = "quicperf"

// report is what the server sends back when the stream ends.
type report struct {
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"` // first byte to end of stream
	User    float64 `json:"user_s"`
	Sys     float64 `json:"sys_s"`
}

func main() {
	server := flag.Bool("server", false, "be the server: listen on -addr, print the address, serve one stream")
	addr := flag.String("addr", "127.0.0.1:0", "-server: address to listen on")
	secs := flag.Float64("l", 3, "test length in seconds")
	total := flag.Int64("n", 0, "bytes to send (0: send for -l seconds)")
	size := flag.Int("m", 65536, "bytes a write")
	flag.Parse()
	var err error
	if *server {
		var ln *quic.Listener
		if ln, err = listen(*addr); err == nil {
			fmt.Println(ln.Addr())
			err = serveOne(ln)
		}
	} else {
		err = client(time.Duration(*secs*float64(time.Second)), *total, *size)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "quicperf:", err)
		os.Exit(1)
	}
}

// listen starts a QUIC listener with a certificate made now.
func listen(addr string) (*quic.Listener, error) {
	cert, err := selfSigned()
	if err != nil {
		return nil, err
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{alpn}}
	return quic.ListenAddr(addr, tc, nil)
}

// serveOne accepts one connection and one stream, reads it to its end,
// writes the report on the stream's send side and closes the listener.
func serveOne(ln *quic.Listener) error {
	defer ln.Close()
	ctx := context.Background()
	conn, err := ln.Accept(ctx)
	if err != nil {
		return err
	}
	st, err := conn.AcceptStream(ctx)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	var r report
	var start time.Time
	for {
		n, err := st.Read(buf)
		if n > 0 && r.Bytes == 0 {
			start = time.Now()
		}
		r.Bytes += int64(n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	r.Seconds = time.Since(start).Seconds()
	r.User, r.Sys = cpu()
	if err := json.NewEncoder(st).Encode(r); err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	// Wait for the client to close, so the report is not cut off.
	<-conn.Context().Done()
	return nil
}

// client starts the server in a child process, sends to it and prints
// the result.
func client(d time.Duration, total int64, size int) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	srv := exec.Command(exe, "-server")
	srv.Stderr = os.Stderr
	out, err := srv.StdoutPipe()
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Wait()
	defer srv.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
	defer cancel()
	sent, r, err := send(ctx, strings.TrimSpace(line), d, total, size)
	if err != nil {
		return err
	}
	if r.Bytes != sent {
		return fmt.Errorf("sent %d bytes, the server received %d", sent, r.Bytes)
	}
	u, s := cpu()
	fmt.Printf("%.2f Mbit/s, %d bytes in %.2f s; CPU s: sender user %.2f sys %.2f, receiver user %.2f sys %.2f\n",
		float64(r.Bytes)*8/r.Seconds/1e6, r.Bytes, r.Seconds, u, s, r.User, r.Sys)
	return nil
}

// send dials the server at to, writes size-byte messages on one stream
// for d (or total bytes when total > 0), closes the stream and returns
// the bytes written and the server's report.
func send(ctx context.Context, to string, d time.Duration, total int64, size int) (int64, report, error) {
	var r report
	conn, err := quic.DialAddr(ctx, to, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{alpn}}, nil)
	if err != nil {
		return 0, r, err
	}
	defer conn.CloseWithError(0, "")
	st, err := conn.OpenStreamSync(ctx)
	if err != nil {
		return 0, r, err
	}
	msg := make([]byte, size)
	var sent int64
	end := time.Now().Add(d)
	more := func() bool {
		if total > 0 {
			return sent < total
		}
		return time.Now().Before(end)
	}
	for more() {
		m := msg
		if total > 0 {
			m = m[:min(int64(len(m)), total-sent)]
		}
		n, err := st.Write(m)
		sent += int64(n)
		if err != nil {
			return sent, r, err
		}
	}
	if err := st.Close(); err != nil {
		return sent, r, err
	}
	if err := json.NewDecoder(st).Decode(&r); err != nil {
		return sent, r, fmt.Errorf("report: %w", err)
	}
	return sent, r, nil
}

// cpu returns the process's user and system CPU seconds.
func cpu() (user, sys float64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime), tv(ru.Stime)
}

// selfSigned returns a certificate for the loopback address, made now.
func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
