// The development set as the eval reads it: the gzip JSONL fixtures read by the package's own
// JSONL reader (tool-loop-guard/replay), replayed by the package's replay engine, and the one fact
// of an original trajectory that the eval measures against and the engine does not know: its heavy
// loops (one identical call with one identical result >= HEAVY_LOOP_REPEATS times) and their onset.
import { createHash } from "node:crypto";
import fs from "node:fs";
import zlib from "node:zlib";
import { readTrajectories, replayTrajectory } from "tool-loop-guard/replay";

/** One identical call (tool + args) with one identical result this many times is a heavy loop. */
export const HEAVY_LOOP_REPEATS = 10;
/** A heavy loop's onset is its third identical call. */
export const ONSET_OCCURRENCE = 3;

/** Sorted-keys serialisation, for telling identical calls and results apart in the original run. */
function stableStringify(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`).join(",")}}`;
}

const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");

/** The identity of a result, the same for a long text and its compact `textSha256` form. */
function resultKey(step) {
  if ("error" in step) return `error:${sha256(stableStringify(step.error))}`;
  const result = step.result;
  if (typeof result === "string") return sha256(result);
  const parts = result?.content;
  if (Array.isArray(parts) && parts.length === 1 && parts[0]?.type === "text") {
    return parts[0].textSha256 ?? sha256(parts[0].text);
  }
  return sha256(stableStringify(result ?? null));
}

const callKey = (step) => `${step.tool}\u0000${stableStringify(step.args ?? {})}`;

/** Reads gzip (or plain) JSONL fixtures: Map runId -> trajectory (tool-loop-guard/replay's shape). */
export function loadRuns(files) {
  const runs = new Map();
  for (const file of files) {
    const raw = file.endsWith(".gz") ? zlib.gunzipSync(fs.readFileSync(file)) : fs.readFileSync(file);
    for (const trajectory of readTrajectories(raw.toString("utf8"), { name: file, format: "jsonl" })) {
      if (runs.has(trajectory.runId)) throw new Error(`run ${trajectory.runId} appears in two fixtures`);
      runs.set(trajectory.runId, trajectory);
    }
  }
  return runs;
}

/**
 * The earliest heavy loop of a trajectory: its onset (1-based number of the call that is its
 * third identical call, as the replay timeline numbers calls) and its count; null when it has none.
 */
export function heavyLoop(trajectory) {
  const seen = new Map();
  let index = 0;
  for (const step of trajectory.steps) {
    if ("event" in step) continue;
    index += 1;
    const key = `${callKey(step)}\u0000${resultKey(step)}`;
    const indices = seen.get(key) ?? [];
    indices.push(index);
    seen.set(key, indices);
  }
  let best = null;
  for (const indices of seen.values()) {
    if (indices.length < HEAVY_LOOP_REPEATS) continue;
    const onset = indices[ONSET_OCCURRENCE - 1];
    if (best === null || onset < best.onset) best = { onset, count: indices.length };
  }
  return best;
}

/**
 * Replays one run with the package's engine; returns what the eval counts: calls, calls run, the
 * first warning and every refusal (index, action, detector, count, and whether it was costless as
 * the engine defines it: the refused call's real result is one the same tool already returned).
 */
export function replayRun(guard, trajectory) {
  const { summary } = replayTrajectory(guard, trajectory, { timeline: false });
  return {
    calls: summary.calls,
    ran: summary.ran,
    firstWarning: summary.firstWarning,
    refusals: summary.refusals.map(({ index, action, detector, count, cost }) => ({ index, action, detector, count, costless: cost === "costless" })),
  };
}
