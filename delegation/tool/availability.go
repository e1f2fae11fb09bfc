package tool

// Availability is a built-in tool as this machine and configuration offer it:
// the tool itself, or the reason it cannot run here. Unavailable tools are
// still listed (agentry permissions, the UI), so a file's grant of a tool
// that cannot run on this machine stays visible instead of vanishing.
type Availability struct {
	// Name is the tool's name ("shell.run"), set whether or not it is available.
	Name string
	// Tool is the tool; nil when unavailable.
	Tool Tool
	// Reason says why the tool is unavailable ("bubblewrap (bwrap) is not
	// installed"); empty when it is available.
	Reason string
}

// Available returns a for a tool that can run.
func Available(t Tool) Availability { return Availability{Name: t.Spec().Name, Tool: t} }

// Unavailable returns a for the tool name that cannot run, and why.
func Unavailable(name, reason string) Availability { return Availability{Name: name, Reason: reason} }

// Ok reports whether the tool can run.
func (a Availability) Ok() bool { return a.Tool != nil }

// Tools returns the available tools of list, in order.
func Tools(list []Availability) []Tool {
	out := make([]Tool, 0, len(list))
	for _, a := range list {
		if a.Ok() {
			out = append(out, a.Tool)
		}
	}
	return out
}
