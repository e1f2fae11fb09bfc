package cost

// Checked is when the shipped prices were last checked against the
// providers' published list prices (standard tier, no batch discount, prompts
// under any long-context surcharge).
const Checked = "2026-11-23"

// Shipped is the price table agentry ships, keyed by model id (any
// provider prefix matches; see Table.Lookup). USD per million tokens.
// Sources: Anthropic's and OpenAI's pricing pages as quoted by the search
// done on Checked; override in config when a price changes.
var Shipped = map[string]Price{
	// Anthropic (cached input = cache hits and refreshes).
	"claude-opus-4-6":   {Input: 5, Output: 25, CachedInput: 0.50},
	"claude-opus-4-5":   {Input: 5, Output: 25, CachedInput: 0.50},
	"claude-opus-4-1":   {Input: 15, Output: 75, CachedInput: 1.50},
	"claude-opus-4-0":   {Input: 15, Output: 75, CachedInput: 1.50},
	"claude-opus-4":     {Input: 15, Output: 75, CachedInput: 1.50},
	"claude-sonnet-4-6": {Input: 3, Output: 15, CachedInput: 0.30},
	"claude-sonnet-4-5": {Input: 3, Output: 15, CachedInput: 0.30},
	"claude-sonnet-4-0": {Input: 3, Output: 15, CachedInput: 0.30},
	"claude-sonnet-4":   {Input: 3, Output: 15, CachedInput: 0.30},
	"claude-haiku-4-5":  {Input: 1, Output: 5, CachedInput: 0.10},
	"claude-3-5-haiku":  {Input: 0.80, Output: 4, CachedInput: 0.08},

	// OpenAI.
	"gpt-5":        {Input: 1.25, Output: 10, CachedInput: 0.125},
	"gpt-5.1":      {Input: 1.25, Output: 10, CachedInput: 0.125},
	"gpt-5-mini":   {Input: 0.25, Output: 2, CachedInput: 0.025},
	"gpt-5-nano":   {Input: 0.05, Output: 0.40, CachedInput: 0.005},
	"gpt-4.1":      {Input: 2, Output: 8, CachedInput: 0.50},
	"gpt-4.1-mini": {Input: 0.40, Output: 1.60, CachedInput: 0.10},
	"gpt-4.1-nano": {Input: 0.10, Output: 0.40, CachedInput: 0.025},
	"gpt-4o":       {Input: 2.50, Output: 10, CachedInput: 1.25},
	"gpt-4o-mini":  {Input: 0.15, Output: 0.60, CachedInput: 0.075},
	"o3":           {Input: 2, Output: 8, CachedInput: 0.50},
	"o3-mini":      {Input: 1.10, Output: 4.40, CachedInput: 0.55},
	"o4-mini":      {Input: 1.10, Output: 4.40, CachedInput: 0.275},
	"o1":           {Input: 15, Output: 60, CachedInput: 7.50},
}
