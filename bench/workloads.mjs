// Benchmark workloads for bench/run.mjs: prebuilt {call, outcome} steps (built before timing, so
// only the guard's work is measured), deterministic (seeded), identical for the package and the
// baseline. A step with `endRun` ends its run after it, as a gateway does when an agent run ends.

/** mulberry32: a small seeded PRNG, so every bench run replays the same workload. */
function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["alpha", "bravo", "config", "delta", "export", "fetch", "gamma", "handler", "index", "json", "kernel", "lambda"];

/** `bytes` bytes of ASCII source-like text with newlines; `seed` varies it. */
export function sourceText(bytes, seed) {
  const random = prng(seed);
  const lines = [`// generated file ${seed}\n`];
  let length = lines[0].length;
  for (let line = 1; length < bytes; line++) {
    const a = WORDS[Math.floor(random() * WORDS.length)];
    const b = WORDS[Math.floor(random() * WORDS.length)];
    const text = `  const ${a}_${line} = ${b}(${Math.floor(random() * 1e6)}, "${a}-${b}"); // line ${line}\n`;
    lines.push(text);
    length += text.length;
  }
  return lines.join("").slice(0, bytes);
}

/** MCP-style tool result: text content plus small details with a volatile duration. */
function mcpResult(text, details) {
  return { content: [{ type: "text", text }], details };
}

/** The eight tools of the mixed workload: args of ~100 bytes and results of ~230 bytes of JSON. */
const MIXED_TOOLS = [
  {
    tool: "read_file",
    args: (v) => ({ path: `/workspace/project/src/components/widget_${v}/index.tsx`, encoding: "utf-8", maxLines: 400 }),
    text: (v) => `export function Widget${v}(props: Props) {\n  const [state, setState] = useState(initial${v});\n  return <Panel title={props.title} items={state.items} />;\n}`,
  },
  {
    tool: "search_web",
    args: (v) => ({ query: `typescript wasm loop detection pattern number ${v}`, maxResults: 5, region: "en-US" }),
    text: (v) => `1. Detecting tool loops in agents (${v}) - example.org/articles/loops\n2. Content hashing for progress checks - example.net/blog/hashing\n3. Agent guardrails FAQ`,
  },
  {
    tool: "list_dir",
    args: (v) => ({ path: `/workspace/project/packages/module_${v}/src`, recursive: false, includeHidden: false }),
    text: (v) => `index.ts\nmodule_${v}.ts\nmodule_${v}.test.ts\nutils/\nfixtures/\nREADME.md\npackage.json\ntsconfig.json\nCHANGELOG.md\nvite.config.ts`,
  },
  {
    tool: "grep",
    args: (v) => ({ pattern: `useLoopGuard\\(config_${v}\\)`, path: "/workspace/project/src", ignoreCase: true, contextLines: 2 }),
    text: (v) => `src/app.ts:42:  const guard = useLoopGuard(config_${v});\nsrc/server.ts:17:  useLoopGuard(config_${v}).check(call);\nsrc/worker.ts:8: // useLoopGuard`,
  },
  {
    tool: "fetch_url",
    args: (v) => ({ url: `https://docs.example.com/api/v2/reference/endpoints/${v}`, timeoutMs: 10000, maxBytes: 65536 }),
    text: (v) => `<h1>Endpoint ${v}</h1><p>Returns the current state of the resource. Rate limit: 60 requests per minute per token.</p><p>Status: stable</p>`,
  },
  {
    tool: "command_status",
    args: (v) => ({ commandId: `cmd-000${v % 4}-build-and-test`, waitMs: 5000, tailLines: 20, includeStderr: true }),
    text: (v, step) => `status: running\nelapsed: ${step * 5}s\nlast line: [${step}/400] compiling crate number ${step} of the workspace (module_${v})\nwarnings: 0`,
  },
  {
    tool: "update_task",
    args: (v) => ({ taskId: `T-10${v}`, status: "in_progress", note: `Working on step ${v} of the churn summary` }),
    text: (v) => `{"ok":true,"task":{"id":"T-10${v}","status":"in_progress","title":"Summarise Q3 churn data, part ${v}.","assignee":"agent-7"}}`,
  },
  {
    tool: "exec",
    args: (v) => ({ command: `npm test -- --filter module_${v} --reporter dot`, timeoutMs: 120000, workdir: "/workspace" }),
    text: (v) => `> project@1.0.0 test\n> vitest run --filter module_${v}\n\n Test Files  3 passed (3)\n      Tests  41 passed (41)\n   Duration  1.8s`,
  },
];

/**
 * (a) Small mixed records: the eight tools above with 12 argument variants each, spread at random
 * over four runs; results depend on the call (command_status shows progress), so the guard sees
 * occasional repeats but no stuck loop.
 */
export function smallMixed(steps) {
  const random = prng(1);
  const out = [];
  for (let i = 0; i < steps; i++) {
    const spec = MIXED_TOOLS[Math.floor(random() * MIXED_TOOLS.length)];
    const variant = Math.floor(random() * 12);
    const call = { runId: `mixed-${Math.floor(random() * 4)}`, tool: spec.tool, args: spec.args(variant), callId: `call-${i}`, at: 1_800_000_000_000 + i * 1500 };
    const details = spec.tool === "exec"
      ? { status: "completed", exitCode: 0, durationMs: 1800 + (i % 97), pid: 4000 + i, cwd: "/workspace" }
      : { durationMs: 20 + (i % 97), bytes: 180 + variant };
    out.push({ call, outcome: { ...call, result: mcpResult(spec.text(variant, i), details) } });
  }
  return out;
}

/** The update_task incident's call and its 92-character result. */
const INCIDENT_CALL = { tool: "update_task", args: { taskId: "T-1042", status: "in_progress", note: "Working on the churn summary" } };
const INCIDENT_RESULT = '{"ok":true,"task":{"id":"T-1042","status":"in_progress","title":"Summarise Q3 churn data."}}';

/** The update_task incident as it happened: 31 identical calls, each returning the same 92-character string. */
export function incident(calls = 31) {
  return Array.from({ length: calls }, (_, i) => {
    const call = { ...INCIDENT_CALL, at: 1_793_714_531_000 + i * 2600 };
    return { call, outcome: { ...call, result: INCIDENT_RESULT } };
  });
}

/**
 * (b) A stuck identical loop: the incident's call and result over and over, in runs of 25 calls
 * (warned at 10, refused from 21), each run ended after its 25th call.
 */
export function stuckLoop(steps, perRun = 25) {
  const out = [];
  for (let i = 0; i < steps; i++) {
    const runId = `stuck-${Math.floor(i / perRun)}`;
    const call = { runId, ...INCIDENT_CALL, callId: `call-${i}`, at: 1_800_000_000_000 + i * 2600 };
    out.push({ call, outcome: { ...call, result: mcpResult(INCIDENT_RESULT, { durationMs: 30 + (i % 50) }) }, endRun: i % perRun === perRun - 1 });
  }
  return out;
}

/** (c, d) read_file calls with distinct paths returning `bytes` of text (eight different texts in turn). */
export function largeText(steps, bytes) {
  const texts = Array.from({ length: 8 }, (_, seed) => sourceText(bytes, seed));
  const out = [];
  for (let i = 0; i < steps; i++) {
    const call = { runId: "large", tool: "read_file", args: { path: `/workspace/data/export_${i % 64}.log`, encoding: "utf-8" }, callId: `call-${i}`, at: 1_800_000_000_000 + i * 1000 };
    out.push({ call, outcome: { ...call, result: mcpResult(texts[i % texts.length], { durationMs: 5 + (i % 13) }) } });
  }
  return out;
}
