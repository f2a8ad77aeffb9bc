// The official JS SDK (@langchain/langgraph-sdk) drives Sitewalk's inspection graph with
// `script: parallel`: one AI message calls two headless tools at once. The SDK's own headless-tool
// helpers find both interrupts in the streamed values, run both implementations and resume them
// in ONE command keyed by interrupt id. Prints JSON of what happened.
//
// usage: node sdk_parallel.mjs <agent server URL> [assistant id]
import { Client, flushPendingHeadlessToolInterrupts } from "@langchain/langgraph-sdk";

const [apiUrl, assistantId = "inspection"] = process.argv.slice(2);
if (!apiUrl) {
  console.error("usage: node sdk_parallel.mjs <agent server URL> [assistant id]");
  process.exit(2);
}

const DRAFT = {
  inspection_id: "inspection-77", site: "Pier 9", inspector: "Noor", findings: ["rust on the rail"], risk: "medium",
};
const FIX = { latitude: 59.3293, longitude: 18.0686, accuracy_m: 12, timestamp: "2026-12-03T09:00:00.000Z", source: "device" };

// Implementations registered the way the SDK takes them ({tool: {name}, execute}); the values
// they return are sent as they are (the graph reads a bare result object as a success).
const executed = [];
const tools = [
  { tool: { name: "read_local_draft" }, execute: async (args) => { executed.push(["read_local_draft", args]); return DRAFT; } },
  { tool: { name: "get_current_location" }, execute: async (args) => { executed.push(["get_current_location", args]); return FIX; } },
];

const client = new Client({ apiUrl });
const thread = await client.threads.create();
const threadId = thread.thread_id;

// Follow a run to its end; then the pending interrupts from the thread's state (the authoritative
// list: the stream reports parallel interrupts one values event each), in the values shape the
// SDK's flush reads.
async function follow(options) {
  for await (const part of client.runs.stream(threadId, assistantId, { ...options, streamMode: ["values"] })) {
    if (part.event === "error") throw new Error(`run error: ${JSON.stringify(part.data)}`);
  }
  const state = await client.threads.getState(threadId);
  return { ...state.values, __interrupt__: state.interrupts ?? [] };
}

const commands = [];
const handled = new Set();
let values = await follow({ input: { messages: [{ role: "user", content: "Start inspection inspection-77 script: parallel" }] } });
const pendingAtOnce = (values?.__interrupt__ ?? []).map((i) => i.value?.tool_call?.name);

// The SDK's own flush: executes every pending headless interrupt, then submits one batch command.
for (let round = 0; round < 5 && values?.__interrupt__?.length; round++) {
  const submitted = new Promise((resolve, reject) => {
    flushPendingHeadlessToolInterrupts(values, tools, handled, {
      resumeSubmit: async (command) => {
        commands.push(command);
        try {
          resolve(await follow({ command: { resume: command.resume }, multitaskStrategy: "interrupt" }));
        } catch (err) {
          reject(err);
        }
      },
    });
  });
  values = await submitted;
}

const state = await client.threads.getState(threadId);
const runs = await client.runs.list(threadId);
const messages = state.values?.messages ?? [];
console.log(JSON.stringify({
  thread_id: threadId,
  pending_at_once: pendingAtOnce,
  executed,
  commands,
  runs: runs.map((r) => ({ run_id: r.run_id, status: r.status })),
  final: {
    next: state.next,
    interrupts: (state.tasks ?? []).flatMap((t) => t.interrupts ?? []).length,
    ui_root: state.values?.ui_spec?.root ?? null,
    tool_messages: messages.filter((m) => m.type === "tool").map((m) => ({
      name: m.name, tool_call_id: m.tool_call_id, status: m.status, artifact: m.artifact,
    })),
    last_text: messages.length ? messages[messages.length - 1].content : null,
  },
}));
