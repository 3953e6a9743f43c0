// tool-loop-guard/openclaw: the plugin driven through a recorder of the plugin API's `api.on`,
// replaying the hook sequence OpenClaw's agent loop runs around each tool call
// (before_tool_call, the tool unless blocked, after_tool_call; before_prompt_build per run;
// session_end), and fromOpenClawConfig on gateway configs with per-agent overrides. These are the
// quick unit checks; tests/js/openclaw/ runs the plugin inside the real openclaw 2026.9.6.
import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { LoopGuard } from "tool-loop-guard";
import { fromOpenClawConfig, toolLoopEvent, toolLoopGuardPlugin } from "tool-loop-guard/openclaw";
import { CONFIG, expectedRun, STUCK_RESULT } from "./support.mjs";

const ARGS = { job: "42" };

/** A plugin API that records the handlers registered with `on`. */
function recorderApi(config) {
  const handlers = new Map();
  return {
    config,
    on(hookName, handler) {
      assert.ok(!handlers.has(hookName), `${hookName} registered once`);
      handlers.set(hookName, handler);
    },
    handlers,
  };
}

/** OpenClaw's order of hooks for `calls` tool calls of one session; returns what the model got. */
async function session(api, { sessionKey, agentId, calls, resultOf, openclawRun = `run-of-${sessionKey}` }) {
  const got = [];
  let executed = 0;
  for (let n = 1; n <= calls; n += 1) {
    const ctx = { agentId, sessionKey, runId: openclawRun, toolName: "status", toolCallId: `${openclawRun}-${n}` };
    const event = { toolName: "status", params: ARGS, runId: ctx.runId, toolCallId: ctx.toolCallId };
    const decision = await api.handlers.get("before_tool_call")(event, ctx);
    if (decision?.block === true) {
      got.push({ blocked: decision.blockReason });
      // As OpenClaw 2026.9.6 does: after_tool_call for the refused call too, with the refusal as its error.
      await api.handlers.get("after_tool_call")({ ...event, error: decision.blockReason, durationMs: 0 }, ctx);
      continue;
    }
    executed += 1;
    const result = resultOf(executed);
    await api.handlers.get("after_tool_call")({ ...event, result, durationMs: 1 }, ctx);
    got.push({ result });
  }
  return { got, executed };
}

describe("tool-loop-guard/openclaw plugin", () => {
  test("registers the tool and prompt hooks and refuses an endless repeat at the core's call", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const guard = new LoopGuard(CONFIG);
    const api = recorderApi({});
    toolLoopGuardPlugin(guard).register(api);
    assert.deepEqual([...api.handlers.keys()].sort(), ["after_tool_call", "before_prompt_build", "before_tool_call", "session_end"]);
    const { got, executed } = await session(api, { sessionKey: "agent:main:s1", calls: plan.stopAt + 3, resultOf: () => STUCK_RESULT });
    assert.equal(executed, plan.executed, "the tool ran only while the guard allowed it");
    assert.deepEqual(JSON.parse(got[plan.firstBlock - 1].blocked), plan.verdicts[plan.firstBlock - 1].refusal);
    assert.ok(got.slice(plan.firstBlock - 1).every((g) => g.blocked !== undefined), "a plugin cannot end the run: every later call is refused");
    assert.equal(JSON.parse(got[plan.stopAt - 1].blocked).mode, plan.verdicts[plan.stopAt - 1].refusal.mode);
    guard.free();
  });

  test("given emitDiagnosticEvent, every verdict that intervenes is emitted as OpenClaw's tool.loop event; a failing sink changes nothing", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const intervening = plan.verdicts.filter((v) => v.action !== "allow");
    for (const sink of ["recording", "throwing"]) {
      const guard = new LoopGuard(CONFIG);
      const api = recorderApi({});
      const emitted = [];
      const emitDiagnosticEvent = (event) => {
        emitted.push(event);
        if (sink === "throwing") throw new Error("the sink is down");
      };
      toolLoopGuardPlugin(guard, { emitDiagnosticEvent }).register(api);
      const { got, executed } = await session(api, { sessionKey: "agent:main:s1", calls: plan.stopAt, resultOf: () => STUCK_RESULT });
      assert.equal(executed, plan.executed, `${sink} sink: the calls went as without one`);
      assert.ok(got.at(-1).blocked !== undefined);
      assert.ok(emitted.length >= intervening.length, "one event per warning, refusal and stop (check and record)");
      for (const verdict of intervening) {
        const event = toolLoopEvent(verdict, { sessionKey: "agent:main:s1" });
        assert.ok(emitted.some((e) => JSON.stringify(e) === JSON.stringify(event)), `${verdict.action} at ${verdict.count} emitted`);
      }
      assert.ok(emitted.every((e) => e.type === "tool.loop" && e.sessionKey === "agent:main:s1"));
      guard.free();
    }
  });

  test("a warning's hint is appended to the next prompt once", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const hint = plan.verdicts[plan.firstWarn - 1].hint;
    const guard = new LoopGuard(CONFIG);
    const api = recorderApi({});
    toolLoopGuardPlugin(guard).register(api);
    const build = api.handlers.get("before_prompt_build");
    assert.equal(build({ prompt: "p", messages: [] }, { sessionKey: "s" }), undefined, "nothing before a warning");
    await session(api, { sessionKey: "s", calls: plan.firstWarn, resultOf: () => STUCK_RESULT });
    assert.deepEqual(build({ prompt: "p", messages: [] }, { sessionKey: "s" }), { appendContext: hint });
    assert.equal(build({ prompt: "p", messages: [] }, { sessionKey: "s" }), undefined, "delivered once");
    guard.free();
  });

  test("changing results are never refused; two sessions interleaved stay independent", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const guard = new LoopGuard(CONFIG);
    const api = recorderApi({});
    toolLoopGuardPlugin(guard).register(api);
    const progress = await session(api, { sessionKey: "p", calls: 25, resultOf: (n) => `${n} of 30 steps done` });
    assert.equal(progress.executed, 25);
    const [a, b] = await Promise.all(
      ["a", "b"].map((sessionKey) => session(api, { sessionKey, calls: plan.stopAt, resultOf: () => STUCK_RESULT })),
    );
    assert.equal(a.executed, plan.executed);
    assert.equal(b.executed, plan.executed);
    guard.free();
  });

  test("each OpenClaw run of a session is a new turn; session_end forgets the session", async () => {
    const plan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT });
    const guard = new LoopGuard(CONFIG);
    const api = recorderApi({});
    toolLoopGuardPlugin(guard).register(api);
    const first = await session(api, { sessionKey: "s", calls: plan.stopAt, resultOf: () => STUCK_RESULT, openclawRun: "run-1" });
    assert.ok(first.got.at(-1).blocked !== undefined, "the first run was stopped");
    let n = 0;
    const next = await session(api, { sessionKey: "s", calls: 3, resultOf: () => `${(n += 1)} of 30 steps done`, openclawRun: "run-2" });
    assert.equal(next.executed, 3, "the next run of the session starts clean");
    assert.equal(guard.stats().liveRuns, 1);
    api.handlers.get("session_end")({ sessionId: "id-of-s", sessionKey: "s", messageCount: 9, reason: "reset" }, { sessionId: "id-of-s", sessionKey: "s" });
    assert.equal(guard.stats().liveRuns, 0, "session_end ended the run");
    guard.free();
  });

  test("with a guard factory, each agent gets a guard from its merged config", async () => {
    const gateway = {
      plugins: { entries: { "tool-loop-guard": { config: { preset: "strict", detectors: { pingPong: false } } } } },
      agents: { entries: { lenient: { tools: { loopDetection: { preset: "default" } } } } },
    };
    const made = [];
    const api = recorderApi(gateway);
    toolLoopGuardPlugin((agentId, config) => {
      made.push(agentId);
      return new LoopGuard(fromOpenClawConfig(config, agentId));
    }).register(api);
    const strict = await session(api, { sessionKey: "s1", agentId: "main", calls: 12, resultOf: () => STUCK_RESULT });
    const lenient = await session(api, { sessionKey: "s2", agentId: "lenient", calls: 12, resultOf: () => STUCK_RESULT });
    assert.deepEqual(made, ["main", "lenient"], "one guard per agent, made on first use");
    const lenientPlan = expectedRun({ tool: "status", args: ARGS, resultOf: () => STUCK_RESULT, limit: 12, config: { preset: "default", detectors: { pingPong: false } } });
    assert.equal(lenient.executed, lenientPlan.executed);
    assert.ok(strict.executed < lenient.executed, "the agent's override took effect");
  });
});

describe("tool-loop-guard/openclaw plugin: it fails open", () => {
  test("a guard config the core rejects leaves that agent unguarded, said once in OpenClaw's log; other agents stay guarded", async () => {
    const gateway = {
      plugins: { entries: { "tool-loop-guard": { config: { preset: "strict" } } } },
      agents: { entries: { typo: { tools: { loopDetection: { warningTreshold: 2 } } } } },
    };
    const api = recorderApi(gateway);
    const logged = [];
    api.logger = { warn: (message) => logged.push(["warn", message]), error: (message) => logged.push(["error", message]), info: () => {} };
    toolLoopGuardPlugin((agentId, config) => new LoopGuard(fromOpenClawConfig(config, agentId))).register(api);
    for (const sessionKey of ["t1", "t2"]) {
      const typo = await session(api, { sessionKey, agentId: "typo", calls: 12, resultOf: () => STUCK_RESULT });
      assert.equal(typo.executed, 12, "every call ran: nothing blocked");
    }
    assert.equal(logged.length, 1, "said once");
    const [level, message] = logged[0];
    assert.equal(level, "error");
    assert.match(message, /guard is OFF for agent typo/);
    assert.match(message, /warningTreshold/, "naming the key");
    const main = await session(api, { sessionKey: "m1", agentId: "main", calls: 12, resultOf: () => STUCK_RESULT });
    assert.ok(main.executed < 12, "the agent whose config is right is guarded");
    const next = await api.handlers.get("before_prompt_build")({ runId: "r" }, { agentId: "typo", sessionKey: "t1" });
    assert.equal(next, undefined);
  });

  test("a hook that throws lets the call through (OpenClaw would block it), said once", async () => {
    const failing = { check: () => { throw new Error("boom"); }, record: () => { throw new Error("boom"); }, progress: () => {}, endRun: () => {} };
    const api = recorderApi({});
    const logged = [];
    api.logger = { warn: (message) => logged.push(message), error: (message) => logged.push(message), info: () => {} };
    toolLoopGuardPlugin(failing).register(api);
    const { executed } = await session(api, { sessionKey: "s", calls: 3, resultOf: () => STUCK_RESULT });
    assert.equal(executed, 3);
    assert.deepEqual(logged, ["tool-loop-guard: before_tool_call failed, the call was let through: boom", "tool-loop-guard: after_tool_call failed, the call was let through: boom"]);
  });
});

describe("the plugin manifest's configSchema", () => {
  const manifest = JSON.parse(fs.readFileSync(new URL("../../../examples/openclaw-plugin/openclaw.plugin.json", import.meta.url), "utf8"));
  const schema = manifest.configSchema;

  /** The keys the core accepts in the object `at` builds around an unknown key (from its invalid_config error). */
  function coreKeys(at) {
    try {
      new LoopGuard(at({ "no such key": 1 })).free();
    } catch (error) {
      const listed = /known keys: (.*)$/.exec(error.message);
      assert.ok(listed !== null, error.message);
      return listed[1].split(", ").sort();
    }
    assert.fail("the core accepted an unknown key");
  }

  /** The values the core accepts for a choice (from its invalid_config error). */
  function coreChoices(at) {
    try {
      new LoopGuard(at("no such value")).free();
    } catch (error) {
      return [...error.message.matchAll(/"([^"]+)"/g)].map((m) => m[1]).filter((v) => v !== "no such value").sort();
    }
    assert.fail("the core accepted an unknown value");
  }

  test("names exactly the keys the core accepts, at every level, and closes every object (additionalProperties: false)", () => {
    const tool = schema.properties.tools.additionalProperties;
    const objects = [
      [schema, (o) => o],
      [schema.properties.detectors, (o) => ({ detectors: o })],
      [schema.properties.postCompactionGuard, (o) => ({ postCompactionGuard: o })],
      [tool, (o) => ({ tools: { t: o } })],
      [tool.properties.cap, (o) => ({ tools: { t: { cap: o } } })],
    ];
    for (const [object, at] of objects) {
      assert.equal(object.type, "object");
      assert.equal(object.additionalProperties, false);
      assert.deepEqual(Object.keys(object.properties).sort(), coreKeys(at));
    }
  });

  test("its choices are the core's", () => {
    assert.deepEqual([...schema.properties.preset.enum].sort(), coreChoices((v) => ({ preset: v })));
    assert.deepEqual([...schema.properties.policy.enum].sort(), coreChoices((v) => ({ policy: v })));
    assert.deepEqual([...schema.properties.tools.additionalProperties.properties.kind.enum].sort(), coreChoices((v) => ({ tools: { t: { kind: v } } })));
  });
});

describe("fromOpenClawConfig", () => {
  test("OpenClaw 2026.9.6's shape: the plugin's config, then tools.loopDetection, then agents.entries.<id>.tools.loopDetection", () => {
    const gateway = {
      plugins: { entries: { "tool-loop-guard": { enabled: true, hooks: { allowConversationAccess: true }, config: { preset: "strict", detectors: { cycle: true } } } } },
      tools: { loopDetection: { enabled: true } },
      agents: { defaults: { model: "m" }, entries: { Ops: { tools: { loopDetection: { enabled: false } } }, other: {} } },
    };
    assert.deepEqual(fromOpenClawConfig(gateway, "ops"), { preset: "strict", detectors: { cycle: true }, enabled: false }, "agent ids compare as OpenClaw normalises them");
    assert.deepEqual(fromOpenClawConfig(gateway, "other"), { preset: "strict", detectors: { cycle: true }, enabled: true });
    assert.deepEqual(fromOpenClawConfig(gateway), { preset: "strict", detectors: { cycle: true }, enabled: true });
    const off = new LoopGuard(fromOpenClawConfig(gateway, "ops"));
    for (let i = 0; i < 30; i += 1) assert.equal(off.check({ tool: "t" }).action, "allow", "the agent's enabled: false turns the guard off");
    off.free();
    // OpenClaw reads agents.list only when there is no agents.entries.
    assert.deepEqual(fromOpenClawConfig({ agents: { entries: {}, list: [{ id: "x", tools: { loopDetection: { enabled: false } } }] } }, "x"), {});
  });

  test("older releases' shape: agents.list[] and the tuning fields, laid over as OpenClaw laid them", () => {
    const gateway = {
      tools: { loopDetection: { warningThreshold: 5, criticalThreshold: 8, globalCircuitBreakerThreshold: 30, detectors: { pingPong: false, cycle: true }, postCompactionGuard: { windowSize: 4 } } },
      agents: { list: [{ id: "ops", tools: { loopDetection: { criticalThreshold: 12, detectors: { cycle: false } } } }, { id: "other" }] },
    };
    assert.deepEqual(fromOpenClawConfig(gateway, "ops"), {
      warningThreshold: 5,
      criticalThreshold: 12,
      globalCircuitBreakerThreshold: 30,
      detectors: { pingPong: false, cycle: false },
      postCompactionGuard: { windowSize: 4 },
    });
    assert.deepEqual(fromOpenClawConfig(gateway, "other"), gateway.tools.loopDetection);
    assert.deepEqual(fromOpenClawConfig(gateway), gateway.tools.loopDetection);
    assert.deepEqual(fromOpenClawConfig({ agents: { list: [{ id: "x", tools: { loopDetection: { enabled: false } } }] } }, "x"), { enabled: false });
    assert.deepEqual(fromOpenClawConfig({}), {});
    for (const agentId of ["ops", "other", undefined]) new LoopGuard(fromOpenClawConfig(gateway, agentId)).free();
  });

  test("a key the guard does not know is named by the guard, not dropped", () => {
    assert.throws(() => new LoopGuard(fromOpenClawConfig({ tools: { loopDetection: { noSuchKey: 1 } } })), (error) => error.code === "invalid_config" && /noSuchKey/.test(error.message + error.field));
  });
});
