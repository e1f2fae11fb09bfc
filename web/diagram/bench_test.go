package diagram

import (
	"context"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/goccy/go-graphviz"
)

// cpu is the CPU time (user + system) this process has used: on a shared
// machine wall time says more about the neighbours than about dot.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchDraw reports the CPU per drawing (layout and SVG) of draw.
func benchDraw(b *testing.B, draw func() Drawing) {
	start := cpu()
	for b.Loop() {
		if err := SVG(draw()).Render(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpu()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkFirstDrawing lays out a graph dot has not seen (the cache is
// bypassed), as the first view of a changed agents folder does.
func BenchmarkFirstDrawing(b *testing.B) {
	for _, n := range []struct {
		name string
		g    Graph
	}{{"10 agents", chain(10)}, {"100 agents", chain(100)}} {
		b.Run(n.name, func(b *testing.B) {
			if _, err := runDot(context.Background(), n.g); err != nil { // start the engine outside the timing
				b.Fatal(err)
			}
			benchDraw(b, func() Drawing {
				d, err := runDot(context.Background(), n.g)
				if err != nil {
					b.Fatal(err)
				}
				return d
			})
		})
	}
}

// BenchmarkCachedDrawing is a reload of the page: the layout comes from the
// cache and only the SVG is written.
func BenchmarkCachedDrawing(b *testing.B) {
	g := chain(100)
	benchDraw(b, func() Drawing {
		d, err := Layout(context.Background(), g)
		if err != nil {
			b.Fatal(err)
		}
		return d
	})
}

// BenchmarkEngineStart is what the first Layout in a process adds: a new
// Graphviz context (the module itself is compiled at process start).
func BenchmarkEngineStart(b *testing.B) {
	start := cpu()
	for b.Loop() {
		gv, err := graphviz.New(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		gv.Close()
	}
	b.ReportMetric(float64((cpu()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
