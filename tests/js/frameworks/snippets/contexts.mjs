// For each snippet of README.md and docs/adapters.md (by the name of its `<!-- snippet: … -->`
// marker): the TypeScript put before it, binding the names it leaves free to scripted models and
// tools (fixtures.ts) and to a host's small pieces, and the TypeScript put after it, which runs
// what it built and asserts what the docs around it promise; `driver`, when given, is a module of
// its own that imports the snippet's module (for a snippet whose product is its default export)
// and is run instead. `run: false`: type-checked only.
const ASSERT = `import assert from "node:assert/strict";\n`;

/** The AI SDK snippets' free names: a scripted model stuck on `status`, a thread, a prompt (and `imports` from fixtures.ts). */
const aiSdkPrelude = (imports, extra = "") => `${ASSERT}${extra}import { ${["aiSdkModel", ...imports].join(", ")} } from "./fixtures.js";
const threadId = "thread-42";
const model = aiSdkModel();
const prompt = "Is job 42 done?";
`;

/** What every AI SDK snippet ends with: the guard stopped the loop and the user reads its userMessage. */
const AI_SDK_STOPPED = `assert.equal(guarded.stopped()?.action, "stop");
assert.equal(answer, guarded.stopped()?.userMessage);
`;

export const CONTEXTS = {
  "readme-gateway": {
    prelude: `${ASSERT}import type { Verdict } from "tool-loop-guard";
const tools: Record<string, (args: unknown) => Promise<unknown>> = { update_task: async () => "task 7: status done" };
const ended: string[] = [];
const hints: string[] = [];
function endTurn(_runId: string, verdict: Verdict): unknown {
  ended.push(verdict.userMessage ?? "");
  return verdict.refusal;
}
function injectIntoNextContext(_runId: string, hint: string): void {
  hints.push(hint);
}
`,
    postlude: `for (let i = 0; i < 40 && ended.length === 0; i += 1) await dispatch("conv-1", "update_task", { id: 7, status: "done" }, \`call-\${i}\`);
assert.ok(hints.length > 0, "the model was warned");
assert.ok((ended[0] ?? "").length > 0, "the turn ended with a message for the user");
`,
  },
  "readme-openclaw": {
    prelude: ASSERT,
    postlude: `const actions: boolean[] = [];
for (let i = 0; i < 25; i += 1) {
  const args = { path: "status.txt" };
  const { block } = beforeToolCall("r", "read", args, \`c\${i}\`);
  actions.push(block);
  if (!block) afterToolCall("r", "read", args, \`c\${i}\`, "job 42: still running");
}
assert.equal(actions.indexOf(true), 20, "OpenClaw's verdict: the 21st identical call is refused");
`,
  },
  "readme-worker": {
    prelude: `${ASSERT}async function runTool(_tool: string, _args: unknown): Promise<unknown> {
  return "task 7: status done";
}
`,
    postlude: "",
    // Its module's default export is the Worker: a second module drives it.
    driver: `import assert from "node:assert/strict";
import worker from "./readme-worker.js";
let refusal: { error?: string } | undefined;
for (let i = 0; i < 40 && refusal === undefined; i += 1) {
  const request = new Request("http://worker/", { method: "POST", body: JSON.stringify({ runId: "r", tool: "update_task", args: { id: 7 } }) });
  const { result } = (await (await worker.fetch(request)).json()) as { result: unknown };
  if (typeof result === "object" && result !== null) refusal = result as { error?: string };
}
assert.equal(refusal?.error, "tool_loop_detected");
`,
  },
  // The browser entry needs a browser (init() fetches the .wasm): type-checked here, run in Chromium by tests/js/runtimes.
  "readme-browser": { prelude: "", postlude: "", run: false },
  "readme-adapters": { prelude: `${aiSdkPrelude(["aiSdkTools"])}const tools = aiSdkTools();\n`, postlude: AI_SDK_STOPPED },
  "adapters-ai-sdk": { prelude: aiSdkPrelude(["jobStatus"]), postlude: AI_SDK_STOPPED },
  "adapters-openai-agents": {
    prelude: `${ASSERT}import { agentsModel, agentsStatus } from "./fixtures.js";
const model = agentsModel();
const status = agentsStatus();
const input = "Is job 42 done?";
const threadId = "thread-42";
`,
    postlude: `assert.equal(guarded.stopped(threadId)?.action, "stop");
assert.equal(result.finalOutput, guarded.stopped(threadId)?.userMessage);
`,
  },
  "adapters-langchain": {
    prelude: `${ASSERT}import { langchainModel, langchainStatus } from "./fixtures.js";
const model = langchainModel();
const status = langchainStatus();
const messages = [{ role: "user", content: "Is job 42 done?" }];
const threadId = "thread-42";
`,
    postlude: `assert.equal(guarded.stopped(threadId)?.action, "stop");
assert.equal(state.messages.at(-1)?.content, guarded.stopped(threadId)?.userMessage);
`,
  },
  "adapters-mcp": {
    prelude: `${ASSERT}import { mcpClient } from "./fixtures.js";
const { client, close } = await mcpClient();
const runId = "session-42";
const modelCalls = Array.from({ length: 30 }, () => ({ name: "status", arguments: { job: "42" } }));
const shown: unknown[] = [];
const told: string[] = [];
const showTheModel = (result: unknown) => void shown.push(result);
const tellTheUser = (text: string) => void told.push(text);
`,
    postlude: `assert.equal(told.length, 1, "the user was told once why the turn ended");
assert.ok(shown.length < modelCalls.length);
await close();
`,
  },
  "adapters-mastra": {
    prelude: `${ASSERT}import { mastraAgent } from "./fixtures.js";
const agent = mastraAgent();
const prompt = "Is job 42 done?";
const threadId = "thread-42";
const userId = "user-7";
`,
    postlude: `assert.equal(guarded.stopped()?.action, "stop");
assert.equal(guarded.stopped()?.runId, threadId, "the memory thread is the run");
assert.equal(answer, guarded.stopped()?.userMessage);
`,
  },
  "adapters-openclaw": {
    prelude: "",
    postlude: "",
    driver: `import assert from "node:assert/strict";
import plugin from "./adapters-openclaw.js";
assert.equal(plugin.id, "tool-loop-guard", "the id openclaw.plugin.json must carry");
const hooks: string[] = [];
plugin.register({ config: {}, on: (name) => void hooks.push(name) });
assert.deepEqual(hooks.sort(), ["after_tool_call", "before_prompt_build", "before_tool_call", "session_end"]);
`,
  },
  "adapters-otel": {
    prelude: `import { LoopGuard } from "tool-loop-guard";
const guard = new LoopGuard();
`,
    postlude: `stop();
guard.free();
`,
  },
  "package-dispatch": {
    prelude: `${ASSERT}const tools: Record<string, (args: unknown) => Promise<unknown>> = { update_task: async () => "task 7: status done" };
const told: string[] = [];
const hints: string[] = [];
function endTurn(_runId: string, userMessage: string): string {
  told.push(userMessage);
  return userMessage;
}
function injectIntoNextTurn(hint: string): void {
  hints.push(hint);
}
`,
    postlude: `for (let i = 0; i < 40 && told.length === 0; i += 1) await callTool("conv-1", "update_task", { id: 7, status: "done" });
assert.ok(hints.length > 0, "the model was warned");
assert.ok((told[0] ?? "").length > 0, "the user was told why the turn ended");
`,
  },
  // A bare specifier in a page needs a bundler or an import map: type-checked only.
  "package-browser": { prelude: "", postlude: "", run: false },
  "package-adapters": {
    prelude: `${aiSdkPrelude(["aiSdkTools"], `import { LoopGuard } from "tool-loop-guard";\n`)}const tools = aiSdkTools();\nconst guard = new LoopGuard();\n`,
    postlude: AI_SDK_STOPPED,
  },
};
