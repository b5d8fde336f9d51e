package transfer

// fcfs is the first-come first-served scheduler used when Config.Scheduler
// is nil: streams are served in the order their messages were queued. It
// keeps a ring of stream ids, one entry per queued message.
type fcfs struct {
	ring       []uint16
	head, size int
}

func (f *fcfs) Enqueue(sid uint16, size int) {
	if f.size == len(f.ring) {
		n := max(2*len(f.ring), 16)
		r := make([]uint16, n)
		for i := range f.size {
			r[i] = f.ring[(f.head+i)%len(f.ring)]
		}
		f.ring, f.head = r, 0
	}
	f.ring[(f.head+f.size)%len(f.ring)] = sid
	f.size++
}

func (f *fcfs) Next() (uint16, bool) {
	if f.size == 0 {
		return 0, false
	}
	return f.ring[f.head], true
}

func (f *fcfs) Sent(sid uint16, n int, msgEnd, empty bool) {
	if msgEnd && f.size > 0 {
		f.head = (f.head + 1) % len(f.ring)
		f.size--
	}
}

func (f *fcfs) PacketDone() {}

func (f *fcfs) Forget(sid uint16) {
	j := 0
	for i := range f.size {
		if v := f.ring[(f.head+i)%len(f.ring)]; v != sid {
			f.ring[(f.head+j)%len(f.ring)] = v
			j++
		}
	}
	f.size = j
}
