// `npm run demo` replays the bundled traces through the built package: the update_task incident is
// warned and blocked (the same change made again; defaults: warned at call 3, blocked at 5;
// strict: blocked at call 3),
// polling with progress is never refused, the ping-pong trace is.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const demo = fileURLToPath(new URL("../../../examples/demo.mjs", import.meta.url));

test("the demo runs and refuses the incident", () => {
  const run = spawnSync(process.execPath, [demo], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const summaries = new Map();
  let section = null;
  for (const line of run.stdout.split("\n")) {
    const header = /^=== (.+) ===$/.exec(line);
    if (header) section = header[1];
    const summary = /summary: first warning (none|call (\d+)), first block (none|call (\d+))/.exec(line);
    if (summary) {
      summaries.set(section, {
        warn: summary[2] === undefined ? null : Number(summary[2]),
        block: summary[4] === undefined ? null : Number(summary[4]),
      });
    }
  }
  const incident = summaries.get("update_task incident [default]");
  assert.equal(incident.warn, 3);
  assert.equal(incident.block, 5);
  assert.equal(summaries.get("update_task incident [strict]").block, 3);
  assert.deepEqual(summaries.get("polling with progress [default]"), { warn: null, block: null });
  assert.notEqual(summaries.get("ping-pong [default]").block, null);
});
