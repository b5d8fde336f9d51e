// Command lossyrelay forwards UDP datagrams between a client and a server
// on loopback, dropping, duplicating, reordering and delaying some of them
// with a seeded random source (package perf/lossyrelay). It runs until
// interrupted and then prints what it did.
//
//	lossyrelay -listen 127.0.0.1:9903 -server 127.0.0.1:9901 -loss 0.05 -dup 0.01 -reorder 0.02 -seed 1
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/usctp/usctp/perf/lossyrelay"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "front address clients send to")
	server := flag.String("server", "127.0.0.1:9899", "server address")
	loss := flag.Float64("loss", 0, "drop probability, each direction")
	dup := flag.Float64("dup", 0, "duplication probability, each direction")
	reorder := flag.Float64("reorder", 0, "reordering probability, each direction")
	delay := flag.Duration("delay", 0, "one-way delay added, each direction")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	imp := lossyrelay.Impairment{Loss: *loss, Dup: *dup, Reorder: *reorder, Delay: *delay}
	r, err := lossyrelay.New(lossyrelay.Config{Listen: *listen, Server: *server, Forward: imp, Backward: imp, Seed: *seed})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%v\n", r.Addr())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	r.Close()
	f, b := r.Stats()
	fmt.Fprintf(os.Stderr, "forward %+v\nbackward %+v\n", f, b)
}
