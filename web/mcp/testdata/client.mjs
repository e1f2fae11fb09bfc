// An MCP client built on the official TypeScript SDK, driven by the Go
// tests of web/mcp and cmd/agentry: it connects over stdio or Streamable
// HTTP (MCP_TRANSPORT), runs the steps given as JSON in argv[2] in one
// session, and prints one JSON line per step.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const steps = JSON.parse(process.argv[2]);
const env = process.env;
let decision = null; // what the next elicitation answers
const elicited = [];

const client = new Client(
  { name: "agentry-test-client", version: "1.2.3" },
  { capabilities: env.MCP_ELICIT ? { elicitation: { form: {} } } : {} },
);
if (env.MCP_ELICIT) {
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicited.push(req.params.message);
    if (decision === "decline") return { action: "decline" };
    return { action: "accept", content: { decision, note: "answered in the test client" } };
  });
}

let transport;
if (env.MCP_TRANSPORT === "http") {
  const headers = env.MCP_TOKEN ? { Authorization: `Bearer ${env.MCP_TOKEN}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(env.MCP_URL), { requestInit: { headers } });
} else {
  transport = new StdioClientTransport({
    command: env.MCP_COMMAND,
    args: JSON.parse(env.MCP_ARGS || "[]"),
    cwd: env.MCP_CWD,
    env: { ...process.env },
    stderr: "inherit",
  });
}
await client.connect(transport);

const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");

for (const step of steps) {
  switch (step.do) {
    case "list": {
      const { tools } = await client.listTools();
      out({ step: "list", tools });
      break;
    }
    case "call": {
      decision = step.decide ?? null;
      const progress = [];
      const params = { name: step.tool, arguments: step.args };
      if (step.traceparent) params._meta = { traceparent: step.traceparent };
      const t0 = Date.now();
      const res = await client.callTool(params, undefined, {
        onprogress: (p) => progress.push(p.message),
        timeout: 120000,
      });
      out({ step: "call", tool: step.tool, ms: Date.now() - t0, result: res, progress, elicited: elicited.splice(0) });
      break;
    }
    case "cancel": {
      // Abort the call once its run has said it started: the SDK sends
      // notifications/cancelled for the request.
      const progress = [];
      const ac = new AbortController();
      let error = null;
      try {
        await client.callTool({ name: step.tool, arguments: step.args }, undefined, {
          onprogress: (p) => {
            progress.push(p.message);
            if (p.message.includes("started")) ac.abort("the test cancels it");
          },
          signal: ac.signal,
          timeout: 120000,
        });
      } catch (e) {
        error = String(e && e.message ? e.message : e);
      }
      out({ step: "cancel", tool: step.tool, error, progress });
      break;
    }
    case "wait": {
      await new Promise((r) => setTimeout(r, step.ms));
      break;
    }
    default:
      throw new Error(`unknown step ${step.do}`);
  }
}
await client.close();
