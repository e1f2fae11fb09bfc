package otlp

import (
	"context"
	"fmt"

	"github.com/agentry/agentry/trace"
)

// Export sends a stored run's finished spans and returns how many went. A
// run recorded under a TRACEPARENT goes into that same trace (its root
// span's AttrTraceParent), unless cfg.Parent names another. Spans that
// never ended (a run cut short) are not sent and not counted.
func Export(ctx context.Context, cfg Config, spans []trace.Span) (int, error) {
	if cfg.Parent == "" {
		for _, sp := range spans {
			if tp, ok := sp.Attributes[AttrTraceParent].(string); ok && sp.ParentID == "" {
				cfg.Parent = tp
				break
			}
		}
	}
	cfg.MaxQueue = max(cfg.MaxQueue, len(spans))
	e, err := New(ctx, cfg)
	if err != nil {
		return 0, err
	}
	for _, sp := range spans {
		e.RecordSpan(sp)
	}
	if err := e.Close(ctx); err != nil {
		return int(e.Sent()), fmt.Errorf("export run: %w", err)
	}
	return int(e.Sent()), nil
}
