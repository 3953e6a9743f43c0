// Replays recorded runs of the development set through a LoopGuard the way a gateway would use it
// (check before each call; a refused call is not run; record the real outcome of the calls that
// ran) and reports per run what the guard did and what each refusal cost. Also the facts of the
// original trajectory that the eval compares against: heavy loops and their onset.
//
// Interim: the replay engine of the `cli` branch (js/, `tool-loop-guard replay`) is meant to take
// this over once it lands; the figures it reports are defined the same way (issue 11).
import { createHash } from "node:crypto";
import fs from "node:fs";
import zlib from "node:zlib";

/** One identical call (tool + args) with one identical result this many times is a heavy loop. */
export const HEAVY_LOOP_REPEATS = 10;
/** A heavy loop's onset is its third identical call. */
export const ONSET_OCCURRENCE = 3;
/** Replayed calls are spaced this far apart (the recorded runs carry no usable clock). */
export const CALL_SPACING_MS = 10_000;

/** Sorted-keys serialisation, for comparing arguments and results in this script only. */
export function stableStringify(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`).join(",")}}`;
}

const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");

/** The identity of a result, the same for a long text and its `textSha256` form. */
export function resultKey(record) {
  if ("error" in record) return `error:${sha256(stableStringify(record.error))}`;
  const result = record.result;
  if (typeof result === "string") return sha256(result);
  const parts = result?.content;
  if (Array.isArray(parts) && parts.length === 1 && parts[0]?.type === "text") {
    return parts[0].textSha256 ?? sha256(parts[0].text);
  }
  return sha256(stableStringify(result ?? null));
}

export const callKey = (record) => `${record.tool}\u0000${stableStringify(record.args ?? {})}`;

/** Reads gzip JSONL fixtures into runs: Map runId -> records in order. */
export function loadRuns(files) {
  const runs = new Map();
  for (const file of files) {
    const raw = file.endsWith(".gz") ? zlib.gunzipSync(fs.readFileSync(file)) : fs.readFileSync(file);
    for (const line of raw.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      const record = JSON.parse(line);
      if (record.event) continue; // compaction markers: none in this set yet
      if (!runs.has(record.runId)) runs.set(record.runId, []);
      runs.get(record.runId).push(record);
    }
  }
  return runs;
}

/**
 * Heavy loops of the original trajectory: for every (call, result) repeated at least
 * HEAVY_LOOP_REPEATS times, its count and onset (0-based index of its third occurrence).
 * Returns the earliest onset, or null when the run has none.
 */
export function heavyLoop(records) {
  const seen = new Map();
  for (const [index, record] of records.entries()) {
    const key = `${callKey(record)}\u0000${resultKey(record)}`;
    const entry = seen.get(key) ?? { count: 0, indices: [] };
    entry.count += 1;
    entry.indices.push(index);
    seen.set(key, entry);
  }
  let best = null;
  for (const entry of seen.values()) {
    if (entry.count < HEAVY_LOOP_REPEATS) continue;
    const onset = entry.indices[ONSET_OCCURRENCE - 1];
    if (best === null || onset < best.onset) best = { onset, count: entry.count };
  }
  return best;
}

/**
 * Replays one run through `guard`. Per refusal: its index, action, detector and whether it
 * withheld information (a stop, or a vetoed call whose real result differs from what the
 * identical call last returned, or that never ran before) or was costless.
 */
export function replayRun(guard, runId, records) {
  const lastResult = new Map(); // callKey -> resultKey of the last identical call that ran
  const refusals = [];
  let firstWarning = null;
  let ran = 0;
  for (const [index, record] of records.entries()) {
    const call = { runId, tool: record.tool, args: record.args, at: index * CALL_SPACING_MS };
    const verdict = guard.check(call);
    const key = callKey(record);
    if (verdict.action === "block" || verdict.action === "stop") {
      const costless = verdict.action === "block" && lastResult.get(key) === resultKey(record);
      refusals.push({ index, action: verdict.action, detector: verdict.detector, count: verdict.count, costless });
      if (verdict.action === "stop") break;
      continue;
    }
    if (verdict.action === "warn") firstWarning ??= index;
    const outcome = "error" in record ? { ...call, error: record.error } : { ...call, result: record.result };
    const after = guard.record(outcome);
    if (after.action === "warn") firstWarning ??= index;
    lastResult.set(key, resultKey(record));
    ran += 1;
  }
  guard.endRun(runId);
  return { calls: records.length, ran, firstWarning, refusals };
}
