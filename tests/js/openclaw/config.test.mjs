// A bad plugin config inside the real OpenClaw (the pinned `openclaw` package, Node 24): a
// misspelled key is reported where OpenClaw validates config (`openclaw config validate`, against
// the manifest's `configSchema`), and a config the schema lets through but the core rejects (a
// critical threshold below the warning one) leaves the agent unguarded with one line in OpenClaw's
// log: every tool call runs, none is blocked because the plugin's hook failed.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startFakeModel, turnOf } from "./fake-model.mjs";
import { openclawHome, openclawVersion, pluginDir, startGateway } from "./gateway.mjs";

const LS = { name: "ls", args: { path: "." } };
const CALLS = 8;
const ENTRY = "plugins.entries.tool-loop-guard.config";

describe(`a bad plugin config in openclaw ${openclawVersion}`, () => {
  test("openclaw config validate reports a misspelled key (and a wrong type), and accepts the documented config", () => {
    const openclaw = openclawHome();
    try {
      // Installed first, then configured, as the docs do it (a plugin configured before it is
      // installed is left unchecked by OpenClaw until its "data/settings upgrade" finishes).
      openclaw.writeConfig({});
      const installed = openclaw.cli(["plugins", "install", "--link", pluginDir, "--accept-capabilities", "--force"]);
      assert.equal(installed.status, 0, installed.stdout + installed.stderr);
      const cases = [
        [{ preset: "strict" }, true, null],
        [{ preset: "strict", warningThreshold: 2, criticalThreshold: 3, detectors: { pingPong: false }, tools: { status: { kind: "poll" } } }, true, null],
        [{ preset: "strict", warningTreshold: 2 }, false, /warningTreshold/],
        [{ preset: "stricter" }, false, /preset/],
        [{ detectors: { pingpong: false } }, false, /pingpong/],
        [{ warningThreshold: "2" }, false, /warningThreshold/],
      ];
      for (const [config, valid, named] of cases) {
        const current = openclaw.readConfig();
        current.plugins.entries["tool-loop-guard"].config = config;
        openclaw.writeConfig(current);
        const result = openclaw.cli(["config", "validate", "--json"]);
        const report = JSON.parse(result.stdout);
        assert.equal(report.valid, valid, `${JSON.stringify(config)}: ${JSON.stringify(report)}`);
        if (named !== null) {
          const issues = JSON.stringify(report.issues);
          assert.ok(issues.includes(ENTRY), `the issue is the plugin's config: ${issues}`);
          assert.match(issues, named);
        }
      }
    } finally {
      openclaw.remove();
    }
  });
});

describe(`a config the core rejects, in a real openclaw ${openclawVersion} gateway`, () => {
  let model;
  let gateway;

  before(async () => {
    model = await startFakeModel((turn) => (turn.toolResults.length >= CALLS ? { text: "Listed." } : { call: LS }));
    // Valid for the schema (each key known, each a count), rejected by the core: critical <= warning.
    gateway = await startGateway({ modelUrl: model.baseUrl, pluginConfig: { warningThreshold: 5, criticalThreshold: 3 } });
  });

  after(async () => {
    await gateway?.stop();
    await model?.close();
  });

  test("the plugin fails open: every tool call runs, and OpenClaw's log says once that the guard is off", async () => {
    for (const session of ["agent:main:one", "agent:main:two"]) {
      const from = model.requests.length;
      const answer = await gateway.send(["--agent", "main", "--session-key", session, "--message", "List the files."]);
      const { toolResults } = turnOf(model.requests.at(-1));
      assert.ok(model.requests.length > from);
      assert.equal(toolResults.length, CALLS, "every call got a result");
      for (const result of toolResults) {
        assert.ok(!/blocked|hook failed|tool_loop_detected/i.test(result), `the tool ran: ${result.slice(0, 200)}`);
      }
      assert.equal(answer.result?.payloads?.[0]?.text, "Listed.");
    }
    // The gateway's console, and its log file (one JSON record a line): one line in each.
    const logFile = path.join(gateway.home, "openclaw.log");
    for (const [where, log] of [["console", gateway.output()], ["log file", fs.readFileSync(logFile, "utf8")]]) {
      const lines = log.split("\n").filter((line) => line.includes("tool-loop-guard: the guard is OFF"));
      assert.equal(lines.length, 1, `one line in the ${where}:\n${lines.join("\n")}`);
      assert.match(lines[0], /for agent main/);
      assert.match(lines[0], /criticalThreshold/, "it names the field");
      assert.match(lines[0], /unguarded/);
    }
  });
});
