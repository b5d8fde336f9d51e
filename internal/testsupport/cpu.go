package testsupport

import "testing"

// ReportCPU adds the process CPU time per operation since c0 (a CPUTime
// reading taken when the timed loop started) as the metric cpu-ns/op,
// which a loaded machine does not inflate as it does ns/op. It reports
// nothing where CPU time is unavailable.
func ReportCPU(b *testing.B, c0 int64) {
	if c := CPUTime(); c0 > 0 && c > 0 && b.N > 0 {
		b.ReportMetric(float64(c-c0)/float64(b.N), "cpu-ns/op")
	}
}
