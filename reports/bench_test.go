package reports

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/money"
)

// bigInput is a reconciliation with n findings spread over the rules, the
// size of a bad month at a large customer base.
func bigInput(b *testing.B, n int) *Input {
	in := fixture(&testing.T{})
	rules := in.Report.Rules
	fs := make([]findings.Finding, n)
	for i := range fs {
		rule := rules[1+i*len(rules[1:])/n]
		fs[i] = findings.Finding{Rule: rule.ID, Severity: rule.Severity, Entity: "invoice_line",
			EntityID: fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i), Amount: money.Amount(i%50000 - 20000),
			Currency: []string{"EUR", "USD", "DKK", "GBP"}[i%4], Status: "new", FirstSeen: "2026-11-22T030005Z",
			Detail: fmt.Sprintf("line of invoice INV-%07d (%08x-1111-4000-8000-000000000000) bills 199.50 a unit; product %08x-2222 costs 198.00", i, i, i)}
	}
	in.Report.Findings = fs
	in.MaxRows = 500
	return in
}

func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// peakDuring runs fn and returns the highest heap it saw above the heap
// before fn, sampling every millisecond.
func peakDuring(fn func()) uint64 {
	runtime.GC()
	base := heapAlloc()
	var peak uint64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			if h := heapAlloc(); h > base && h-base > peak {
				peak = h - base
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	return peak
}

// BenchmarkRender100k renders 100,000 findings in each format and reports
// the size of the findings held in memory and the most the heap grew
// while rendering (GC at 10% to make the heap follow what is live). A
// renderer that copied the findings would grow by about findings-MB.
func BenchmarkRender100k(b *testing.B) {
	n := 100_000
	if testing.Short() {
		n = 2_000
	}
	if v, err := strconv.Atoi(os.Getenv("BILLSNAP_BENCH_FINDINGS")); err == nil {
		n = v
	}
	old := debug.SetGCPercent(10)
	defer debug.SetGCPercent(old)
	for _, format := range []string{"md", "html", "xlsx", "csv", "json"} {
		b.Run(format, func(b *testing.B) {
			runtime.GC()
			before := heapAlloc()
			in := bigInput(b, n)
			runtime.GC()
			held := heapAlloc() - before
			var peak uint64
			for b.Loop() {
				peak = max(peak, peakDuring(func() {
					if err := render(format, io.Discard, in); err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(float64(held)/(1<<20), "findings-MB")
			b.ReportMetric(float64(peak)/(1<<20), "render-peak-MB")
			runtime.KeepAlive(in)
		})
	}
}
