package delegation

import "slices"

// RuntimeTool reports whether name is one of the runtime's own tools
// (delegate, dispatch_agent, get_agent_results, get_skill), which run
// inside the loop rather than through Config.Tools: a replay runs them
// anew (delegation/replay).
func RuntimeTool(name string) bool { return slices.Contains(reservedTools, name) }
