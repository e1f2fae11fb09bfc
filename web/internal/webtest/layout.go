package webtest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Box is an element's border box in CSS pixels, relative to the viewport
// (getBoundingClientRect).
type Box struct{ X, Y, W, H float64 }

// Right and Bottom are the box's far edges.
func (b Box) Right() float64  { return b.X + b.W }
func (b Box) Bottom() float64 { return b.Y + b.H }

// Overlaps reports whether two boxes share any area.
func (b Box) Overlaps(o Box) bool {
	return b.X < o.Right() && o.X < b.Right() && b.Y < o.Bottom() && o.Y < b.Bottom()
}

// BoxOf measures the first element a CSS selector finds; the test fails
// when there is none.
func BoxOf(t *testing.T, ctx context.Context, css string) Box {
	t.Helper()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return null;
		const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()`, css)
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](expr))
	if err != nil || len(v) != 4 {
		t.Fatalf("no element %s to measure (%v)", css, err)
	}
	return Box{v[0], v[1], v[2], v[3]}
}

// Viewport sets the window's size in CSS pixels, as a person resizes it.
func Viewport(t *testing.T, ctx context.Context, w, h int64) {
	t.Helper()
	Run(t, ctx, chromedp.EmulateViewport(w, h))
}

// Console collects what a person would see in the browser's console: error
// and warning entries (a resource that answered 404 is one) and uncaught
// exceptions, from the moment it is called.
type Console struct {
	mu       sync.Mutex
	problems []string
}

// WatchConsole starts collecting on the browser tab ctx.
func WatchConsole(t *testing.T, ctx context.Context) *Console {
	t.Helper()
	c := &Console{}
	if _, err := chromedp.Call(ctx, log.Enable, struct{}{}); err != nil {
		t.Fatalf("enable the browser's log: %v", err)
	}
	entries := chromedp.Events(ctx, log.EntryAdded)
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	go func() {
		for ev, err := range entries {
			if err != nil {
				return
			}
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				c.add(fmt.Sprintf("%s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	}()
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			c.add("exception: " + ev.ExceptionDetails.Text)
		}
	}()
	return c
}

func (c *Console) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, s)
}

// Take returns what was collected since the last Take and forgets it.
func (c *Console) Take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.problems
	c.problems = nil
	return out
}
