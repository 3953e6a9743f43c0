// OpenClaw's `tool.loop` diagnostic event from the plugin, inside the real OpenClaw gateway (the
// pinned `openclaw` package, Node 24): the example plugin passes OpenClaw's `emitDiagnosticEvent`
// (openclaw/plugin-sdk/diagnostic-runtime) to toolLoopGuardPlugin, and a test plugin
// (diagnostic-recorder/) records every `tool.loop` event OpenClaw's dispatcher delivers. One agent
// has OpenClaw's own loop detection on as well, the guard under `preset: "openclaw"` (the same
// verdicts): for the same stuck model, the plugin's events have the shape and the values of the
// events OpenClaw's own detector emits, but the message (the core's own words for the model).
// OpenClaw's detector refuses before plugin hooks run, so the plugin's refusal is seen on an agent
// where OpenClaw's detection is off (its default).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { startFakeModel } from "./fake-model.mjs";
import { openclawVersion, startGateway } from "./gateway.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const LS = { name: "ls", args: { path: "." } };
/** Calls the stuck model makes: up to the first refusal (OpenClaw ends its run as failed at a second). */
const CALLS = 21;
/** What the dispatcher adds to every event. */
const DISPATCHER_FIELDS = ["seq", "trace", "ts"];

let model;
let gateway;
let eventsFile;

before(async () => {
  model = await startFakeModel((turn) => (turn.toolResults.length >= CALLS ? { text: "I could not finish." } : { call: LS }));
  gateway = await startGateway({
    modelUrl: model.baseUrl,
    pluginConfig: { preset: "openclaw" },
    morePlugins: [path.join(here, "diagnostic-recorder")],
    configure(config, home) {
      eventsFile = path.join(home, "tool-loop-events.jsonl");
      config.agents.entries.native = { tools: { loopDetection: { enabled: true } } };
      config.plugins.entries["diagnostic-recorder"] = { config: { file: eventsFile } };
    },
  });
});

after(async () => {
  await gateway?.stop();
  await model?.close();
});

/** The recorded events, `{ keys, event, internal }` each, once each (a listener may be registered twice). */
function recorded() {
  const lines = fs.existsSync(eventsFile) ? fs.readFileSync(eventsFile, "utf8").trim().split("\n").filter(Boolean) : [];
  const bySeq = new Map(lines.map((line) => JSON.parse(line)).map((e) => [e.event.seq, e]));
  return [...bySeq.values()];
}

/** What a detection says: an event without the dispatcher's fields, its session and its message. */
function detection({ event }) {
  const { sessionKey, sessionId, message, ...rest } = event;
  return Object.fromEntries(Object.entries(rest).filter(([key]) => !DISPATCHER_FIELDS.includes(key)));
}

describe(`the plugin's tool.loop diagnostic events in openclaw ${openclawVersion}`, () => {
  test("a stuck session's detections reach OpenClaw's diagnostic listeners with the shape and values of OpenClaw's own", async (t) => {
    const sessions = { native: "agent:native:loop", main: "agent:main:loop" };
    for (const [agent, sessionKey] of Object.entries(sessions)) await gateway.send(["--agent", agent, "--session-key", sessionKey, "--message", "Is the job done?"]);
    const events = recorded();
    const openclaw = events.filter((e) => e.internal);
    const ours = events.filter((e) => !e.internal);
    const list = (found) => found.map(({ event }) => `${event.sessionKey}: ${event.level}@${event.count}`).join(", ");
    t.diagnostic(`OpenClaw's detector: ${list(openclaw)}; the plugin: ${list(ours)}`);
    assert.ok(openclaw.some((e) => e.event.level === "warning") && openclaw.some((e) => e.event.level === "critical"), "OpenClaw's own detector warned and refused");
    assert.ok(openclaw.every((e) => e.event.sessionKey === sessions.native), "only where it is on");
    for (const mine of ours) {
      assert.deepEqual(mine.keys, openclaw[0].keys, "the same fields, the dispatcher's included");
      assert.ok(typeof mine.event.message === "string" && mine.event.message.length > 0);
      assert.ok(typeof mine.event.sessionId === "string", "OpenClaw's session id of the hook");
    }
    for (const theirs of openclaw) {
      const same = ours.filter((mine) => mine.event.level === theirs.event.level && mine.event.count === theirs.event.count);
      assert.ok(same.length > 0, `the plugin emitted OpenClaw's ${theirs.event.level} at call ${theirs.event.count} too`);
      for (const mine of same) assert.deepEqual(detection(mine), detection(theirs));
      const inSession = same.find((mine) => mine.event.sessionKey === theirs.event.sessionKey);
      if (inSession !== undefined) assert.equal(inSession.event.sessionId, theirs.event.sessionId, "the same session, named as OpenClaw names it");
    }
    assert.ok(ours.some((e) => e.event.level === "critical" && e.event.sessionKey === sessions.main), "the plugin's refusal, where OpenClaw's detector is off");
  });
});
