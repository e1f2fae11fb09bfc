package core

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// Heartbeat keeps idle event streams open through proxies and lets the server
// notice a client that went away.
const Heartbeat = 25 * time.Second

// OpenEventStream starts a Server-Sent Events response: the browser's
// EventSource reconnects 2 s after the stream breaks.
func OpenEventStream(c echo.Context) *echo.Response {
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, "text/event-stream")
	w.Header().Set(echo.HeaderCacheControl, "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	w.Flush()
	return w
}

// WriteEvent writes one SSE event; each line of data gets its own "data:"
// field, which the browser joins back with newlines.
func WriteEvent(w io.Writer, event, data string) {
	var b strings.Builder
	b.WriteString("event: ")
	b.WriteString(event)
	b.WriteByte('\n')
	for line := range strings.SplitSeq(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}

// StreamChanges answers an event stream for a live set (the agents, the
// workflows): one event named event carrying version() each time changes
// signals, until the client leaves, stop closes or changes closes. It
// starts with the version now, because the page was rendered before the
// stream subscribed and a change in between would otherwise be missed; a
// page that is current refreshes once, cheaply.
func StreamChanges(c echo.Context, event string, subscribe func() (<-chan struct{}, func()), version func() uint64, stop <-chan struct{}) error {
	changes, cancel := subscribe()
	defer cancel()
	w := OpenEventStream(c)
	send := func() { WriteEvent(w, event, strconv.FormatUint(version(), 10)) }
	send()
	w.Flush()
	tick := time.NewTicker(Heartbeat)
	defer tick.Stop()
	ctx := c.Request().Context()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-stop:
			return nil
		case <-tick.C:
			fmt.Fprint(w, ": ping\n\n")
		case _, ok := <-changes:
			if !ok {
				return nil
			}
			send()
		}
		w.Flush()
	}
}
