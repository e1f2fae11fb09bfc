package agents

import (
	"strconv"

	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/web/core"
)

// fieldLabels are the form's labels by field key, for the banner's links.
var fieldLabels = map[string]string{
	"name": "Name", "description": "Description", "model": "Model", "enabled": "Enabled",
	"tools.allow": "Allowed tools", "tools.deny": "Denied tools",
	"subagents.allow": "May delegate to", "subagents.deny": "Never delegates to",
	"subagents.execution": "Execution", "subagents.context": "Context for children",
	"subagents.max_concurrent": "Max concurrent", "subagents.nested": "Nested",
	"max_turns": "Max turns", "timeout": "Timeout", "retry.max_attempts": "Retry attempts",
	"retry.backoff": "Backoff", "body": "Prompt",
}

// Banner is the one message at the top of the editor: what the last save
// did (not saved, saved, saved with warnings) or, when the page was only
// opened, what is wrong with the file. A conflict has its own notice.
func (v EditorView) Banner() core.Banner {
	switch {
	case v.Conflict != nil:
		return core.Banner{}
	case v.RenameRefused != "":
		return core.Banner{Kind: "bad", TestID: "not-renamed", Title: "Not renamed",
			Items: []core.BannerItem{{Text: v.RenameRefused, Href: "#rename-to", Label: "New name"}}}
	case len(v.Refused) > 0:
		return core.Banner{Kind: "bad", TestID: "not-saved",
			Title: "Not saved: " + core.Count(len(v.Refused), "problem"), Items: v.bannerItems(v.Refused)}
	case v.Saved:
		warnings := bySeverity(v.Problems, registry.SeverityWarning)
		if len(warnings) == 0 {
			return core.Banner{Kind: "good", TestID: "saved", Title: "Saved to " + v.Path + "."}
		}
		return core.Banner{Kind: "warn", TestID: "saved",
			Title: "Saved to " + v.Path + " with " + core.Count(len(warnings), "warning"), Items: v.bannerItems(warnings)}
	case len(v.Problems) > 0:
		if errs := bySeverity(v.Problems, registry.SeverityError); len(errs) > 0 {
			return core.Banner{Kind: "bad", TestID: "file-problems",
				Title: core.Count(len(errs), "problem") + " in this file", Items: v.bannerItems(v.Problems)}
		}
		return core.Banner{Kind: "warn", TestID: "file-problems",
			Title: core.Count(len(v.Problems), "warning") + " in this file", Items: v.bannerItems(v.Problems)}
	}
	return core.Banner{}
}

// bannerItems links each problem to its field in the form, or to the raw
// file when it belongs to no field or the form is not shown.
func (v EditorView) bannerItems(ps []ProblemView) []core.BannerItem {
	out := make([]core.BannerItem, len(ps))
	for i, p := range ps {
		f := fieldOf(p.Field)
		label, onForm := fieldLabels[f]
		it := core.BannerItem{Text: p.Message}
		switch {
		case onForm && !v.RawRefused && (v.Name != "" || v.New):
			it.Href, it.Label = "#fieldbox-"+f, label
		case v.New:
			it.Label = label
		default:
			it.Href, it.Label = "#raw-file", "Raw file"
		}
		if p.Line > 0 && it.Label != "" {
			it.Label += ", line " + strconv.Itoa(p.Line)
		} else if p.Line > 0 {
			it.Label = "Line " + strconv.Itoa(p.Line)
		}
		out[i] = it
	}
	return out
}

func bySeverity(ps []ProblemView, severity string) []ProblemView {
	var out []ProblemView
	for _, p := range ps {
		if p.Severity == severity {
			out = append(out, p)
		}
	}
	return out
}

// refusal keeps the problems a save was refused for: the form's own
// findings, and the registry's about fields the form found nothing wrong
// with (the registry sees the value the form could not parse as 0, and
// its "must be at least 1, got 0" would contradict the form's message).
func refusal(form, registryFound []ProblemView) []ProblemView {
	out := append([]ProblemView(nil), form...)
	for _, p := range registryFound {
		if !hasFieldError(form, fieldOf(p.Field)) {
			out = append(out, p)
		}
	}
	return out
}

func hasFieldError(ps []ProblemView, field string) bool {
	for _, p := range ps {
		if fieldOf(p.Field) == field && p.Severity == registry.SeverityError {
			return true
		}
	}
	return false
}
