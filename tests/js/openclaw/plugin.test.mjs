// tool-loop-guard/openclaw inside the real OpenClaw (the pinned `openclaw` package, Node 24): the
// example plugin (examples/openclaw-plugin) installed the documented way and inspected by
// OpenClaw's own loader; then a real gateway whose model is a scripted one on 127.0.0.1
// (fake-model.mjs) that keeps calling OpenClaw's own `ls` tool. Every call goes through OpenClaw's
// hook runner: the plugin refuses at the bare guard's call (the model reads the refusal as the
// tool result), the hint of one turn reaches the next prompt (with the documented
// `hooks.allowConversationAccess: true`), the next user message on the session starts clean, and
// an agent whose `agents.entries.<id>.tools.loopDetection.enabled` is false is not guarded.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { expectedRun } from "../frameworks/support.mjs";
import { startFakeModel, turnOf } from "./fake-model.mjs";
import { openclawHome, openclawVersion, pluginDir, startGateway } from "./gateway.mjs";

const PLUGIN_CONFIG = { preset: "strict" };
const LS = { name: "ls", args: { path: "." } };
const REFUSED = '{"error":"tool_loop_detected"';

/** A model that calls `ls` until it is told the run is stopped (as the stop's text asks), or `limit` calls. */
const untilStopped = (limit) => (turn) => {
  const last = turn.toolResults.at(-1) ?? "";
  if (turn.toolResults.length >= limit || (last.startsWith(REFUSED) && JSON.parse(last).observed.level === "circuit_break")) return { text: "I could not finish." };
  return { call: LS };
};

/** The turn each request of one `openclaw agent` message was: the requests made since `from`. */
const turnsSince = (model, from) => model.requests.slice(from);

let model;
let gateway;

before(async () => {
  model = await startFakeModel(untilStopped(40));
  gateway = await startGateway({ modelUrl: model.baseUrl, pluginConfig: PLUGIN_CONFIG });
});

after(async () => {
  await gateway?.stop();
  await model?.close();
});

describe(`the plugin in openclaw ${openclawVersion}`, () => {
  test("installs from its openclaw.plugin.json and loads with its hooks (inspect --runtime)", () => {
    assert.match(gateway.installed.stdout, /Linked plugin path/);
    const inspected = gateway.cli(["plugins", "inspect", "tool-loop-guard", "--runtime", "--json"]);
    assert.equal(inspected.status, 0, inspected.stderr);
    const report = JSON.parse(inspected.stdout);
    assert.equal(report.plugin.id, "tool-loop-guard", "the manifest id is the plugin's id");
    assert.equal(report.plugin.rootDir, pluginDir);
    assert.equal(report.plugin.status, "loaded");
    assert.deepEqual(report.typedHooks.map((h) => h.name).sort(), ["after_tool_call", "before_prompt_build", "before_tool_call", "session_end"]);
    assert.deepEqual(report.diagnostics, [], "no hook blocked: allowConversationAccess lets before_prompt_build run");
  });

  test("a stuck model is refused through OpenClaw's hook runner at the bare guard's call, and reads the refusal", async (t) => {
    const plan = expectedRun({ tool: LS.name, args: LS.args, resultOf: () => "the same listing", config: PLUGIN_CONFIG });
    const from = model.requests.length;
    const answer = await gateway.send(["--agent", "main", "--session-key", "agent:main:loop", "--message", "Is the job done?"]);
    const { toolResults } = turnOf(model.requests.at(-1));
    const ran = toolResults.filter((r) => !r.startsWith(REFUSED));
    assert.equal(toolResults.length, plan.stopAt, "every call up to the stop got an answer");
    assert.equal(ran.length, plan.executed, "the tool ran only while the guard allowed it");
    assert.deepEqual(JSON.parse(toolResults[plan.firstBlock - 1]), plan.verdicts[plan.firstBlock - 1].refusal, "the model read the core's refusal as the tool result");
    assert.deepEqual(JSON.parse(toolResults.at(-1)), plan.verdicts.at(-1).refusal, "and the stop's");
    assert.equal(answer.result?.payloads?.[0]?.text, "I could not finish.", "the model ended the run itself: a plugin cannot end it");
    t.diagnostic(`${model.requests.length - from} model requests; refused from call ${plan.firstBlock}, stopped at ${plan.stopAt}`);
  });

  test("the next message on the session gets the last turn's hint in its prompt and starts clean", async () => {
    const plan = expectedRun({ tool: LS.name, args: LS.args, resultOf: () => "the same listing", config: PLUGIN_CONFIG });
    const hint = plan.verdicts.find((v) => v.hint !== undefined)?.hint;
    assert.ok(hint !== undefined, "the stuck turn was warned");
    const from = model.requests.length;
    await gateway.send(["--agent", "main", "--session-key", "agent:main:loop", "--message", "Try again."]);
    const requests = turnsSince(model, from);
    assert.ok(turnOf(requests[0]).prompt.includes(hint), "before_prompt_build appended the hint to the new prompt");
    const { toolResults } = turnOf(requests.at(-1));
    assert.ok(!toolResults[0].startsWith(REFUSED), "the first call of the new turn ran: the old stop is forgotten");
    assert.ok(toolResults.at(-1).startsWith(REFUSED), "the new turn, stuck again, was stopped again");
  });

  test("an agent with agents.entries.<id>.tools.loopDetection.enabled: false is not guarded", async () => {
    model.policy = untilStopped(8);
    const from = model.requests.length;
    await gateway.send(["--agent", "quiet", "--session-key", "agent:quiet:loop", "--message", "Is the job done?"]);
    const { toolResults } = turnOf(turnsSince(model, from).at(-1));
    assert.equal(toolResults.length, 8, "the strict guard would have refused the 4th");
    assert.ok(toolResults.every((r) => !r.startsWith(REFUSED)), "nothing refused");
    model.policy = untilStopped(40);
  });
});

describe(`openclaw ${openclawVersion}'s own config`, () => {
  test("rejects the retired tuning fields in tools.loopDetection: only `enabled` is OpenClaw's", () => {
    const openclaw = openclawHome();
    try {
      for (const [loopDetection, valid] of [[{ enabled: true }, true], [{ enabled: true, warningThreshold: 10, criticalThreshold: 20 }, false]]) {
        openclaw.writeConfig({ tools: { loopDetection } });
        const result = openclaw.cli(["config", "validate", "--json"]);
        const report = JSON.parse(result.stdout);
        assert.equal(report.valid, valid, JSON.stringify(report));
        if (!valid) assert.match(JSON.stringify(report.issues), /tools\.loopDetection.*warningThreshold.*criticalThreshold/);
      }
    } finally {
      openclaw.remove();
    }
  });
});

