// Each run's window digests with a keyed SipHash whose key derives from the instance's random
// secret (src/json/window_hash.rs; the Node entries draw it from /dev/urandom, js/entries/node-crypto.ts).
// Checked here through snapshots, which carry the key: the secret is drawn, differs from one process
// to the next, and a run moved between processes keeps its key and so its detection.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { LoopGuard } from "tool-loop-guard";

/** The window-hash field of a default-engine snapshot of run `r`: null for SHA-256, else the key as hex. */
function windowKey(bytes) {
  assert.equal(Buffer.from(bytes.subarray(0, 4)).toString("latin1"), "TLGS");
  assert.equal(bytes[4], 6, "format version");
  const at = 4 + 1 + 1 + 4 + 1; // magic, version, run id marker, its length, "r"
  return bytes[at] === 0 ? null : Buffer.from(bytes.subarray(at + 1, at + 17)).toString("hex");
}

const call = (n) => ({ runId: "r", tool: "get_task", args: { id: "T-1" }, callId: `c${n}` });
const result = "Task T-1: open, assigned to nobody.";

/** The actions of calls `from` to `to` - 1 on `guard` (record when allowed). */
function actions(guard, from, to) {
  const seen = [];
  for (let n = from; n < to; n++) {
    const checked = guard.check(call(n));
    seen.push(checked.action);
    if (checked.action !== "block" && checked.action !== "stop") seen.push(guard.record({ ...call(n), result }).action);
  }
  return seen;
}

/** Runs `calls` identical calls of run `r` in a fresh Node process and returns its snapshot. */
function snapshotFromAnotherProcess(calls) {
  const code = `
    import { LoopGuard } from "tool-loop-guard";
    const guard = new LoopGuard();
    for (let n = 0; n < ${calls}; n++) {
      const call = { runId: "r", tool: "get_task", args: { id: "T-1" }, callId: "c" + n };
      guard.check(call);
      guard.record({ ...call, result: ${JSON.stringify(result)} });
    }
    process.stdout.write(Buffer.from(guard.exportRun("r")).toString("hex"));`;
  const hex = execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: new URL("../../..", import.meta.url) });
  return new Uint8Array(Buffer.from(hex.toString(), "hex"));
}

test("a run's window is keyed, by a secret each process draws afresh", () => {
  const guard = new LoopGuard();
  actions(guard, 0, 1);
  const here = windowKey(guard.exportRun("r"));
  assert.match(here ?? "", /^[0-9a-f]{32}$/, "a keyed window");
  assert.equal(windowKey(guard.exportRun("r")), here, "one run, one key");
  actions(guard, 0, 1);
  const other = new LoopGuard();
  actions(other, 0, 1);
  assert.equal(windowKey(other.exportRun("r")), here, "one instance, one key per run id");
  const elsewhere = windowKey(snapshotFromAnotherProcess(1));
  assert.match(elsewhere ?? "", /^[0-9a-f]{32}$/);
  assert.notEqual(elsewhere, here, "another process, another secret");
  guard.free();
  other.free();
});

test("a run moved from another process keeps its key and is refused as if it had stayed", () => {
  const straight = new LoopGuard();
  const expected = actions(straight, 0, 12);
  assert.ok(expected.includes("block"), JSON.stringify(expected));
  const moved = new LoopGuard();
  const bytes = snapshotFromAnotherProcess(3);
  assert.equal(moved.importRun(bytes), "r");
  assert.deepEqual(actions(moved, 3, 12), expected.slice(6));
  assert.equal(windowKey(moved.exportRun("r")), windowKey(bytes), "the imported key stays with the run");
  moved.endRun("r");
  actions(moved, 0, 1);
  assert.equal(windowKey(moved.exportRun("r")), windowKey(straight.exportRun("r")), "a new run of that id gets this process's key");
  straight.free();
  moved.free();
});
