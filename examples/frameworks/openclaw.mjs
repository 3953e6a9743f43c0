// tool-loop-guard/openclaw: the plugin entry an OpenClaw gateway loads, here registered on a small
// stand-in for the plugin API that runs the hooks in OpenClaw's order around each tool call (the
// plugin installed into a real OpenClaw gateway: examples/openclaw-plugin/).
// Run: node examples/frameworks/openclaw.mjs
import { LoopGuard } from "tool-loop-guard";
import { fromOpenClawConfig, toolLoopGuardPlugin } from "tool-loop-guard/openclaw";

// What the plugin module would default-export.
const plugin = toolLoopGuardPlugin((agentId, gatewayConfig) => new LoopGuard(fromOpenClawConfig(gatewayConfig, agentId)));

// The guard's settings live in the plugin's own config entry (OpenClaw 2026.9's tools.loopDetection holds only `enabled`).
const gatewayConfig = { plugins: { entries: { "tool-loop-guard": { config: { preset: "strict" } } } } };
const hooks = new Map();
plugin.register({ config: gatewayConfig, on: (name, handler) => hooks.set(name, handler) });

const ctx = { agentId: "main", sessionKey: "agent:main:session-42", runId: "run-1", toolName: "jobStatus" };
for (let n = 1; n <= 8; n += 1) {
  const event = { toolName: "jobStatus", params: { job: "42" }, toolCallId: `call-${n}` };
  const decision = await hooks.get("before_tool_call")(event, { ...ctx, toolCallId: event.toolCallId });
  if (decision?.block) {
    console.log(`call ${n}: blocked:`, JSON.parse(decision.blockReason).message);
    continue;
  }
  const result = "job 42: still running";
  await hooks.get("after_tool_call")({ ...event, result }, { ...ctx, toolCallId: event.toolCallId });
  console.log(`call ${n}: ran: ${result}`);
}
console.log("next prompt gets:", hooks.get("before_prompt_build")({ prompt: "", messages: [] }, ctx));
