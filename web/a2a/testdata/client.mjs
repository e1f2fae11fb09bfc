// An A2A client built on the official JS SDK (@a2a-js/sdk, its v0.3
// compatibility transport), driven by web/a2a's Go tests: it fetches an
// agent's (or a workflow's) card and runs one step (argv[2]), printing one
// JSON line per thing it saw. A2A_BASE is the server, A2A_TOKEN its token.
import {
  ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";

const env = process.env;
const step = JSON.parse(process.argv[2]);
const authFetch = (url, init = {}) => {
  const headers = new Headers(init.headers);
  if (env.A2A_TOKEN) headers.set("Authorization", `Bearer ${env.A2A_TOKEN}`);
  return fetch(url, { ...init, headers });
};
const legacyCompat = { enabled: true };
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch, legacyCompat })],
  cardResolver: new DefaultAgentCardResolver({ fetchImpl: authFetch, legacyCompat }),
}));
const states = ["unspecified", "submitted", "working", "completed", "failed", "canceled", "input-required", "rejected", "auth-required"];
const print = (o) => console.log(JSON.stringify(o, (k, v) => (typeof v === "bigint" ? String(v) : v)));

const client = await factory.createFromUrl(env.A2A_BASE, step.card);
const card = await client.getAgentCard();
print({ saw: "card", name: card.name, description: card.description, skills: card.skills.map((s) => s.id) });
const message = {
  messageId: crypto.randomUUID(), role: 1 /* ROLE_USER */, contextId: "", taskId: "",
  parts: [{ content: { $case: "text", value: step.task } }], metadata: step.metadata, extensions: [], referenceTaskIds: [],
};
const stateOf = (s) => states[s?.state] ?? String(s?.state);
const text = (parts) => (parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");

const artifactOf = (task) => {
  const parts = (task.artifacts ?? []).flatMap((a) => a.parts);
  const data = parts.find((p) => p.content?.$case === "data")?.content.value;
  return { result: text(parts), outcome: data };
};

if (step.do === "send") { // message/send, blocking, then tasks/get
  const res = await client.sendMessage({ message, configuration: { blocking: true, acceptedOutputModes: [] } });
  const task = res.payload?.value ?? res;
  print({ saw: "task", id: task.id, state: stateOf(task.status), metadata: task.metadata, ...artifactOf(task) });
  const got = await client.getTask({ id: task.id });
  print({ saw: "got", id: got.id, state: stateOf(got.status) });
  if (task.metadata?.run_id) { // tasks/get by the run's ID reaches the same task
    const byRun = await client.getTask({ id: task.metadata.run_id });
    print({ saw: "got-by-run", id: byRun.id, state: stateOf(byRun.status) });
  }
} else { // message/stream; with cancel, tasks/cancel once it works
  let cancelled = false;
  for await (const ev of client.sendMessageStream({ message, configuration: { blocking: true, acceptedOutputModes: [] } })) {
    const { $case, value } = ev.payload ?? {};
    if ($case === "statusUpdate") {
      print({ saw: "state", state: stateOf(value.status), message: text(value.status?.message?.parts), metadata: value.metadata });
      if (step.do === "cancel" && !cancelled && stateOf(value.status) === "working") {
        cancelled = true;
        // step.byRun: cancel by the run's ID, which the working state names.
        const task = await client.cancelTask({ id: step.byRun ? value.metadata.run_id : value.taskId });
        print({ saw: "cancel", state: stateOf(task.status) });
      }
    } else if ($case === "artifactUpdate") {
      print({ saw: "artifact", ...artifactOf({ artifacts: [value.artifact] }) });
    } else if ($case === "task") {
      print({ saw: "state", state: stateOf(value.status) });
    }
  }
}
