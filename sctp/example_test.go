package sctp_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/usctp/usctp/sctp"
)

// Example runs a server and a client in one program over UDP
// encapsulation on loopback.
func Example() {
	// The server: UDP encapsulation on an ephemeral port, SCTP port 5000.
	l, err := sctp.Listen("127.0.0.1:5000", &sctp.Config{EphemeralUDPPort: true})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	go func() {
		as, err := l.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 1500)
		for {
			n, info, err := as.ReadMsg(buf)
			if err != nil {
				return // io.EOF after the client's shutdown
			}
			// Echo on the same stream with the same PPID.
			as.WriteMsg(buf[:n], sctp.SendInfo{Stream: info.Stream, PPID: info.PPID})
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	as, err := sctp.Dial(ctx, "127.0.0.1:5000", &sctp.Config{EphemeralUDPPort: true, RemoteUDPPort: l.Addr().UDPPort})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := as.WriteMsg([]byte("hello"), sctp.SendInfo{Stream: 2, PPID: 51}); err != nil {
		log.Fatal(err)
	}
	buf := make([]byte, 1500)
	n, info, err := as.ReadMsg(buf)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s on stream %d, PPID %d, whole message %v\n", buf[:n], info.Stream, info.PPID, info.EOR)
	if err := as.Shutdown(ctx); err != nil {
		log.Fatal(err)
	}
	_, _, err = as.ReadMsg(buf)
	fmt.Println(err == io.EOF)
	// Output:
	// hello on stream 2, PPID 51, whole message true
	// true
}

// ExampleAssociation_Stream uses one stream as an io.ReadWriter.
func ExampleAssociation_Stream() {
	l, err := sctp.Listen("127.0.0.1:5001", &sctp.Config{EphemeralUDPPort: true})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	go func() {
		as, err := l.Accept()
		if err != nil {
			return
		}
		io.Copy(as.Stream(1), as.Stream(1)) // echo stream 1
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	as, err := sctp.Dial(ctx, "127.0.0.1:5001", &sctp.Config{EphemeralUDPPort: true, RemoteUDPPort: l.Addr().UDPPort})
	if err != nil {
		log.Fatal(err)
	}
	defer as.Close()
	s := as.Stream(1)
	s.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprint(s, "ping")
	buf := make([]byte, 10)
	n, _ := s.Read(buf)
	fmt.Println(string(buf[:n]))
	// Output: ping
}

// ExampleAssociation_ResetStreams restarts the numbering of stream 3 after
// two messages, and adds streams (RFC 6525).
func ExampleAssociation_ResetStreams() {
	l, err := sctp.Listen("127.0.0.1:5003", &sctp.Config{EphemeralUDPPort: true})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	got := make(chan string, 8)
	go func() {
		as, err := l.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 100)
		for {
			n, info, err := as.ReadMsg(buf)
			if err != nil {
				close(got)
				return
			}
			got <- fmt.Sprintf("%s: stream %d SSN %d", buf[:n], info.Stream, info.SSN)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	as, err := sctp.Dial(ctx, "127.0.0.1:5003", &sctp.Config{EphemeralUDPPort: true, RemoteUDPPort: l.Addr().UDPPort, OutStreams: 8})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range []string{"one", "two"} {
		as.WriteMsg([]byte(m), sctp.SendInfo{Stream: 3})
	}
	fmt.Println(<-got)
	fmt.Println(<-got)
	if err := as.ResetStreams(ctx, sctp.DirOutgoing, 3); err != nil {
		log.Fatal(err)
	}
	as.WriteMsg([]byte("three"), sctp.SendInfo{Stream: 3})
	fmt.Println(<-got)
	if err := as.AddStreams(ctx, 2, 0); err != nil {
		log.Fatal(err)
	}
	out, _ := as.Streams()
	fmt.Println("outbound streams:", out)
	as.Shutdown(ctx)
	// Output:
	// one: stream 3 SSN 0
	// two: stream 3 SSN 1
	// three: stream 3 SSN 0
	// outbound streams: 10
}
