// preset "openclaw" against the released OpenClaw's own loop detector (the pinned `openclaw`
// package, Node 24): the two development checks of scripts/ run on the installed package and must
// find no differing verdict. scripts/openclaw-reference.mjs replays the conformance scenarios
// (tests/scenarios/openclaw_*.json, documented differences skipped); scripts/openclaw-trajectories.mjs
// replays every real-records workload (bench/real/) and every development-set run (eval/runs/)
// through both. OpenClaw's file logging is silenced so that nothing is written to its /tmp log.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { openclawVersion } from "./gateway.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..", "..", "..");
const packageDir = path.join(here, "node_modules", "openclaw");

/** Runs a script of scripts/ on the installed package under this Node: {status, stdout, stderr}. */
function runCheck(script) {
  return spawnSync(process.execPath, [path.join(root, "scripts", script), packageDir], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, OPENCLAW_LOG_LEVEL: "silent" },
  });
}

describe(`preset "openclaw" against openclaw ${openclawVersion}'s own detector`, () => {
  test("every comparable conformance scenario gives the released detector's verdicts", () => {
    const { status, stdout, stderr } = runCheck("openclaw-reference.mjs");
    assert.equal(status, 0, `${stdout}\n${stderr}`);
    assert.match(stdout, /: [1-9]\d* conformance scenarios \(\d+ verdicts\) replayed, 0 differ;/);
  });

  test("every real trajectory gets the same verdicts from both, run ids reused after endRun too", () => {
    const { status, stdout, stderr } = runCheck("openclaw-trajectories.mjs");
    assert.equal(status, 0, `${stdout}\n${stderr}`);
    assert.match(stdout, /^workload customer-service: [1-9]\d* runs/m, "the real-records workloads were replayed");
    assert.match(stdout, /^source taubench-agentverify: [1-9]\d* runs/m, "the development set was replayed");
    assert.match(stdout, /^total: 0 verdicts differ$/m);
  });
});
