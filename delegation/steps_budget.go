package delegation

import "github.com/agentry/agentry/delegation/model"

// Cost is the priced USD of a model call of f (ok false: not priced), so an
// engine that keeps the run's totals and budget itself counts cost as the
// in-process run does.
func (s *Steps) Cost(f Frame, resp *model.Response) (usd float64, ok bool) {
	if s.rt.cfg.Prices == nil || resp == nil {
		return 0, false
	}
	return s.rt.cfg.Prices.Cost(f.Model, resp.InputTokens, resp.OutputTokens, resp.CachedInputTokens)
}
