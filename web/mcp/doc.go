// Package mcp is agentry's MCP server: every exposed agent (the expose:
// section) is one MCP tool, {task, context?}, whose call is a run like one
// started from the web's form; every exposed workflow is one tool,
// workflow-NAME, whose arguments are its inputs. `agentry mcp` serves it
// over stdio, what Claude Code's and VS Code's MCP configurations start;
// serve answers its Streamable HTTP transport at /mcp behind the UI's
// token.
//
// Decisions (docs/mcp-server.md has the user's side):
//
//   - The tool list follows the registry and the workflows catalog: a
//     file added, changed or removed changes the list, and the SDK tells
//     connected clients.
//   - A call is a run started through core.Door (core.Live and the
//     server's Runner), the path the start form uses and A2A's too, with
//     the caller (clientInfo) and the traceparent in _meta on its root
//     span and expose.permissions as one more level of its permission
//     chains.
//   - Progress notifications carry the run's progress lines
//     (delegation/progress), read back from the trace store, so they are
//     the lines `agentry run` prints and work for runs on Temporal too.
//   - notifications/cancelled cancels the call's context, and the run with
//     it; the run ends cancelled and its trace says so.
//   - An ask waits where asks always wait (the approvals store: the web
//     and `agentry approvals` answer it); a client that can elicit also
//     gets a form, and the first answer wins.
//   - The result is the run's answer as text plus core.Outcome as
//     structuredContent (an outputSchema is declared); a run that did not
//     end ok is isError: true, with status and error saying why.
//   - A workflow's tool takes the workflow's inputs: its input schema is a
//     jsonschema.Schema built from inputs: (the SDK validates arguments
//     against it and fills defaults; workflow.ResolveInputs then converts
//     and checks them as `agentry workflow run` does). Its call starts the
//     run through core.Door.StartWorkflow, the WorkflowRunner of the start
//     form, and is followed as an agent's call is; the result is the final
//     result as text and core.WorkflowOutcome (workflow run --json's shape)
//     as structuredContent, isError unless ok or partial. The prefix
//     workflow- keeps a workflow and an agent of one name apart; an agent
//     keeps a name both would take.
package mcp
