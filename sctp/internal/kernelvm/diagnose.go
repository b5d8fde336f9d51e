package kernelvm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// diagRuns numbers the guest programs Diagnose runs, so that their ids stay unique.
var diagRuns atomic.Int64

// Diagnose returns what the guest and QEMU say of the guest's network, for a test that
// failed without a reason of its own (a peer that stopped sending): whether the guest
// reaches the host through QEMU's user network (a ping of HostUserIP, which QEMU
// answers itself), the guest kernel's log at every level (the console shows errors
// only), its interface counters and interrupts, and QEMU's view of every virtio queue
// (the indexes that tell a queue the guest stopped filling from one QEMU stopped
// serving). Each part that cannot be had says why; Diagnose gives up at ctx's end.
func (vm *VM) Diagnose(ctx context.Context) string {
	var b strings.Builder
	run := func(title string, last int, argv ...string) {
		id := fmt.Sprintf("diag%d", diagRuns.Add(1))
		rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		res, err := vm.Run(rctx, id, argv...)
		fmt.Fprintf(&b, "--- guest: %s (exit %d)\n", title, res.Code)
		if last > 0 && len(res.Stdout) > last {
			res.Stdout = res.Stdout[len(res.Stdout)-last:]
		}
		for _, l := range res.Stdout {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		for _, l := range res.Stderr {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if err != nil {
			fmt.Fprintf(&b, "(%v)\n", err)
		}
	}
	run("ping "+HostUserIP, 0, "/bin/ping", "-c", "3", "-W", "2", HostUserIP)
	run("dmesg, last lines", 40, "/bin/dmesg")
	run("/proc/net/dev", 0, "/bin/cat", "/proc/net/dev")
	run("/proc/interrupts", 0, "/bin/cat", "/proc/interrupts")
	run("/proc/net/snmp", 0, "/bin/cat", "/proc/net/snmp")
	b.WriteString("--- QEMU: virtio queues\n")
	b.WriteString(vm.virtioQueues(ctx))
	return b.String()
}

// PingHost pings HostUserIP from the guest, three times, two seconds each: QEMU's user
// network answers it itself, so an error says that the guest's first NIC or QEMU's
// user network does not carry packets, or that kpeer does not answer.
func (vm *VM) PingHost(ctx context.Context) error {
	id := fmt.Sprintf("ping%d", diagRuns.Add(1))
	res, err := vm.Run(ctx, id, "/bin/ping", "-c", "3", "-W", "2", HostUserIP)
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return fmt.Errorf("kernelvm: the guest's ping of %s: exit %d: %s", HostUserIP, res.Code, strings.Join(res.Stdout, "; "))
	}
	return nil
}

// virtioQueues asks QEMU's monitor for the state of every queue of every virtio device.
func (vm *VM) virtioQueues(ctx context.Context) string {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", filepath.Join(vm.dir, "qmp.sock"))
	if err != nil {
		return fmt.Sprintf("(QMP: %v)\n", err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	} else {
		c.SetDeadline(time.Now().Add(10 * time.Second))
	}
	r := bufio.NewReader(c)
	call := func(cmd string, args any) (json.RawMessage, error) {
		req := map[string]any{"execute": cmd}
		if args != nil {
			req["arguments"] = args
		}
		if err := json.NewEncoder(c).Encode(req); err != nil {
			return nil, err
		}
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return nil, err
			}
			var resp struct {
				Return json.RawMessage
				Error  *struct{ Desc string }
			}
			if json.Unmarshal(line, &resp) != nil {
				continue
			}
			if resp.Error != nil {
				return nil, fmt.Errorf("%s: %s", cmd, resp.Error.Desc)
			}
			if resp.Return != nil {
				return resp.Return, nil
			}
			// An event or the greeting: read on.
		}
	}
	if _, err := call("qmp_capabilities", nil); err != nil {
		return fmt.Sprintf("(QMP: %v)\n", err)
	}
	raw, err := call("x-query-virtio", nil)
	if err != nil {
		return fmt.Sprintf("(QMP: %v)\n", err)
	}
	var devs []struct{ Path, Name string }
	json.Unmarshal(raw, &devs)
	var b strings.Builder
	for _, dev := range devs {
		if dev.Name != "virtio-net" {
			continue
		}
		for q := 0; q < 3; q++ {
			raw, err := call("x-query-virtio-queue-status", map[string]any{"path": dev.Path, "queue": q})
			if err != nil {
				fmt.Fprintf(&b, "%s queue %d: %v\n", dev.Path, q, err)
				continue
			}
			fmt.Fprintf(&b, "%s queue %d: %s\n", dev.Path, q, raw)
		}
	}
	if raw, err := call("human-monitor-command", map[string]any{"command-line": "info network"}); err == nil {
		var s string
		json.Unmarshal(raw, &s)
		b.WriteString(s)
	}
	return b.String()
}
