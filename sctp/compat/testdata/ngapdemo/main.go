// Command ngapdemo is a program in the shape of those written against
// github.com/ishidawataru/sctp: an NGAP-like server that accepts
// associations and answers each message on the stream it came on with
// PPID 60, and a client that sets its InitMsg streams, subscribes to
// association events, writes with SndRcvInfo and reads notifications.
//
// It imports github.com/usctp/usctp/sctp/compat; the tests build it as
// it is and with the import changed to github.com/ishidawataru/sctp
// (the kernel's SCTP), and run the builds against each other.
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/usctp/usctp/sctp/compat"
)

const ngapPPID = 60

func main() {
	server := flag.Bool("server", false, "serve (else be the client)")
	addr := flag.String("addr", "127.0.0.1:38412", "address: listen on it, or connect to it")
	msgs := flag.Int("n", 20, "client: messages")
	conns := flag.Int("conns", 1, "server: associations to serve before exiting (0: forever)")
	flag.Parse()
	log.SetFlags(0)
	if *server {
		serve(*addr, *conns)
		return
	}
	if err := client(*addr, *msgs); err != nil {
		log.Fatalf("client: %v", err)
	}
	fmt.Println("client: OK")
}

func serve(addr string, conns int) {
	laddr, err := sctp.ResolveSCTPAddr("sctp", addr)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := sctp.ListenSCTPExt("sctp", laddr, sctp.InitMsg{NumOstreams: 8, MaxInstreams: 8})
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	fmt.Printf("server: listening on %v\n", ln.Addr())
	done := make(chan struct{})
	for i := 0; conns == 0 || i < conns; i++ {
		c, err := ln.AcceptSCTP()
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			handle(c)
			done <- struct{}{}
		}()
	}
	for i := 0; i < conns; i++ {
		<-done
	}
}

// handle answers each message on its stream with PPID 60 until the
// client asks to close.
func handle(c *sctp.SCTPConn) {
	defer c.Close()
	if err := c.SubscribeEvents(sctp.SCTP_EVENT_DATA_IO); err != nil {
		log.Printf("server: subscribe: %v", err)
		return
	}
	buf := make([]byte, 65536)
	for {
		n, info, err := c.SCTPRead(buf)
		if err != nil {
			if err != io.EOF {
				log.Printf("server: read: %v", err)
			}
			return
		}
		if info == nil {
			continue // a notification
		}
		msg := string(buf[:n])
		if msg == "close" {
			return // Close: the client sees the shutdown
		}
		if info.PPID != ngapPPID {
			log.Printf("server: PPID %d", info.PPID)
			return
		}
		reply := fmt.Sprintf("%s@%d", msg, info.Stream)
		if _, err := c.SCTPWrite([]byte(reply), &sctp.SndRcvInfo{Stream: info.Stream, PPID: ngapPPID}); err != nil {
			log.Printf("server: write: %v", err)
			return
		}
	}
}

func client(addr string, msgs int) error {
	raddr, err := sctp.ResolveSCTPAddr("sctp", addr)
	if err != nil {
		return err
	}
	var notes []string
	cfg := sctp.SocketConfig{
		InitMsg: sctp.InitMsg{NumOstreams: 4, MaxInstreams: 4},
		NotificationHandler: func(b []byte) error {
			var h sctp.NotificationHeader
			if err := binary.Read(bytes.NewReader(b), binary.NativeEndian, &h); err != nil {
				return err
			}
			switch sctp.SCTPNotificationType(h.Type) {
			case sctp.SCTP_ASSOC_CHANGE:
				state := sctp.SCTPState(binary.NativeEndian.Uint16(b[8:]))
				notes = append(notes, fmt.Sprintf("assoc_change:%d", state))
			case sctp.SCTP_SHUTDOWN_EVENT:
				notes = append(notes, "shutdown_event")
			default:
				notes = append(notes, fmt.Sprintf("%#x", h.Type))
			}
			return nil
		},
	}
	c, err := cfg.Dial("sctp", nil, raddr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SubscribeEvents(sctp.SCTP_EVENT_ASSOCIATION | sctp.SCTP_EVENT_SHUTDOWN | sctp.SCTP_EVENT_DATA_IO); err != nil {
		return err
	}
	st, err := c.GetStatus()
	if err != nil {
		return err
	}
	if st.Ostreams != 4 || st.Instreams != 4 {
		return fmt.Errorf("streams %d out, %d in; want 4, 4", st.Ostreams, st.Instreams)
	}
	buf := make([]byte, 65536)
	for i := 0; i < msgs; i++ {
		sid := uint16(i % 4)
		msg := fmt.Sprintf("InitialUEMessage-%d", i)
		if _, err := c.SCTPWrite([]byte(msg), &sctp.SndRcvInfo{Stream: sid, PPID: ngapPPID}); err != nil {
			return err
		}
		n, info, err := c.SCTPRead(buf)
		if err != nil {
			return err
		}
		want := fmt.Sprintf("%s@%d", msg, sid)
		if info == nil || string(buf[:n]) != want || info.Stream != sid || info.PPID != ngapPPID {
			return fmt.Errorf("reply %q %+v, want %q on stream %d PPID %d", buf[:n], info, want, sid, ngapPPID)
		}
	}
	// The server closes the association when asked: the client reads the
	// shutdown notifications, then the end of the stream.
	if _, err := c.SCTPWrite([]byte("close"), &sctp.SndRcvInfo{Stream: 0, PPID: ngapPPID}); err != nil {
		return err
	}
	for {
		_, _, err := c.SCTPRead(buf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("after close: %v (notifications %v)", err, notes)
		}
	}
	got := strings.Join(notes, ",")
	fmt.Fprintf(os.Stdout, "client: notifications %s\n", got)
	// The kernel may end the stream before it queues the association's
	// SCTP_ASSOC_CHANGE (SHUTDOWN_COMP): only the SCTP_SHUTDOWN_EVENT is
	// certain to come first.
	if !strings.HasPrefix(got, "shutdown_event") {
		return fmt.Errorf("notifications %s, want shutdown_event first", got)
	}
	return nil
}
