package cost

import (
	"fmt"
	"regexp"
	"strings"
)

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input       float64 `yaml:"input" json:"input"`
	Output      float64 `yaml:"output" json:"output"`
	CachedInput float64 `yaml:"cached_input" json:"cached_input"` // 0 = same as Input
}

// Table prices models. The zero value prices nothing; use New.
type Table struct {
	prices map[string]Price
}

// New returns the shipped prices with overrides laid over them (an override
// replaces a model's whole price). A negative price is an error.
func New(overrides map[string]Price) (*Table, error) {
	t := &Table{prices: make(map[string]Price, len(Shipped)+len(overrides))}
	for k, p := range Shipped {
		t.prices[k] = p
	}
	for k, p := range overrides {
		if p.Input < 0 || p.Output < 0 || p.CachedInput < 0 {
			return nil, fmt.Errorf("prices: %q: prices must not be negative", k)
		}
		if strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("prices: empty model name")
		}
		t.prices[k] = p
	}
	return t, nil
}

// dated is a model id's date suffix: -20250929 or -2025-04-14.
var dated = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// Lookup finds the price of spec: the full spec, then the model id after
// "provider:", then that id without a date suffix.
func (t *Table) Lookup(spec string) (Price, bool) {
	if t == nil {
		return Price{}, false
	}
	keys := []string{spec}
	if _, id, ok := strings.Cut(spec, ":"); ok {
		keys = append(keys, id)
	}
	for _, k := range keys[:len(keys):len(keys)] {
		if s := dated.ReplaceAllString(k, ""); s != k {
			keys = append(keys, s)
		}
	}
	for _, k := range keys {
		if p, ok := t.prices[k]; ok {
			return p, true
		}
	}
	return Price{}, false
}

// Cost is the USD cost of one call to spec; cachedInput is the part of
// input read from the prompt cache. ok is false when spec has no price.
func (t *Table) Cost(spec string, input, output, cachedInput int64) (float64, bool) {
	p, ok := t.Lookup(spec)
	if !ok {
		return 0, false
	}
	cached := p.CachedInput
	if cached == 0 {
		cached = p.Input
	}
	cachedInput = min(max(cachedInput, 0), input)
	usd := (float64(input-cachedInput)*p.Input + float64(cachedInput)*cached + float64(output)*p.Output) / 1e6
	return usd, true
}
