// The development set as the eval reads it, and the eval's own ground truth: the gzip JSONL
// fixtures read by the package's JSONL reader (tool-loop-guard/replay), each run replayed call by
// call through a guard under `policy: "shadow"` (every would-be refusal is seen, and the run goes
// on as it really did), and every would-be veto judged against what the refused call really
// returned. None of the guard's rules live here: the identities below are the eval's definitions
// (issue 23), independent of the core's fingerprints.
//
// - A call's identity: its tool and its arguments with sorted keys.
// - A result's identity: its text with digit runs and hex runs of 8+ characters masked, so results
//   that differ only in counters, durations, timestamps and ids are the same result.
// - A veto is costless when the same call was made before in the run and its real result is the
//   result that call returned last time; anything else (a call never made before included)
//   withholds information.
// - A heavy loop: one call made >= 10 times with one result; its onset is its third such call.
import { createHash } from "node:crypto";
import fs from "node:fs";
import zlib from "node:zlib";
import { PACE_MS, readTrajectories, replayTrajectory } from "tool-loop-guard/replay";

/** One identical call with one (masked) result this many times is a heavy loop. */
export const HEAVY_LOOP_REPEATS = 10;
/** A heavy loop's onset is its third identical call. */
export const ONSET_OCCURRENCE = 3;
/** A heavy loop counts as warned early when a warning comes within this many calls of its onset. */
export const EARLY_WARNING_CALLS = 3;

/** Sorted-keys serialisation, for telling identical calls and results apart. */
export function stableStringify(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`).join(",")}}`;
}

const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");

/** Text with hex runs of 8+ characters and then digit runs replaced by placeholders. */
export function maskNumbers(text) {
  return text.replace(/[0-9a-fA-F]{8,}/g, "<hex>").replace(/[0-9]+/g, "<n>");
}

/** The masked identity of an outcome (a long text kept only as its digest is compared exactly). */
export function resultKey(step) {
  if ("error" in step) {
    const error = step.error;
    const text = typeof error === "string" ? error : stableStringify(error);
    return `error:${sha256(maskNumbers(text))}`;
  }
  const result = step.result;
  if (typeof result === "string") return sha256(maskNumbers(result));
  const parts = result?.content;
  if (Array.isArray(parts) && parts.every((p) => p?.type === "text")) {
    const texts = parts.map((p) => (typeof p.text === "string" ? maskNumbers(p.text) : `sha256:${p.textSha256}`));
    return sha256(`${result.isError === true ? "error:" : ""}${texts.join("\u0000")}`);
  }
  return sha256(maskNumbers(stableStringify(result ?? null)));
}

/** The first characters of a step's result, for reading a refusal. */
export function resultHead(step, length = 160) {
  let text;
  if ("error" in step) text = `error: ${typeof step.error === "string" ? step.error : stableStringify(step.error)}`;
  else if (typeof step.result === "string") text = step.result;
  else if (Array.isArray(step.result?.content)) text = step.result.content.map((p) => p.text ?? `<${p.textSha256 ? "long text" : p.type}>`).join(" | ");
  else text = stableStringify(step.result ?? null);
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
}

export const callKey = (step) => `${step.tool}\u0000${stableStringify(step.args ?? {})}`;

/** The text of a fixture: gzip (`.gz`), brotli (`.br`, the sources too large for 2 MB gzipped) or plain. */
function fixtureText(file) {
  const bytes = fs.readFileSync(file);
  if (file.endsWith(".gz")) return zlib.gunzipSync(bytes);
  if (file.endsWith(".br")) return zlib.brotliDecompressSync(bytes);
  return bytes;
}

/** Reads JSONL fixtures (see fixtureText): Map runId -> trajectory (tool-loop-guard/replay's shape). */
export function loadRuns(files) {
  const runs = new Map();
  for (const file of files) {
    const raw = fixtureText(file);
    for (const trajectory of readTrajectories(raw.toString("utf8"), { name: file, format: "jsonl" })) {
      if (runs.has(trajectory.runId)) throw new Error(`run ${trajectory.runId} appears in two fixtures`);
      runs.set(trajectory.runId, trajectory);
    }
  }
  return runs;
}

/** The calls of a trajectory (events left out), each with its call and result identities. */
export function callsOf(trajectory) {
  const calls = [];
  for (const step of trajectory.steps) {
    if ("event" in step) continue;
    calls.push({ step, index: calls.length + 1, call: callKey(step), result: resultKey(step) });
  }
  return calls;
}

/**
 * The earliest heavy loop of a trajectory: its onset (1-based number of the call that is its
 * third identical call) and its count; null when it has none.
 */
export function heavyLoop(calls) {
  const seen = new Map();
  for (const { call, result, index } of calls) {
    const key = `${call}\u0000${result}`;
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

/** What a shadow verdict would have done (`wouldBe`), or its own action outside shadow. */
const wouldBe = (verdict) => verdict.wouldBe?.action ?? verdict.action;

/**
 * Replays one run through `guard` (which must have `policy: "shadow"`; with `sameAs: true` the
 * bytes of results a host could drop are counted): every call is checked and its real outcome
 * recorded. Returns the would-be vetoes (each judged costless or not), the warnings, the calls,
 * the result bytes and those of results repeating an earlier identical one (`notResent`).
 */
export function shadowReplay(guard, trajectory, runId) {
  const calls = callsOf(trajectory);
  const lastResult = new Map();
  const vetoes = [];
  const warnings = [];
  let next = 0;
  let clock = -PACE_MS;
  let resultBytes = 0;
  let notResent = 0;
  for (const step of trajectory.steps) {
    if ("event" in step) {
      if (step.event === "compaction") guard.compacted(runId);
      else guard.progress(runId, step.reason);
      continue;
    }
    const entry = calls[next++];
    clock = step.at ?? clock + PACE_MS;
    const call = { runId, tool: step.tool, at: clock, callId: step.callId ?? `call-${entry.index}` };
    if (step.args !== undefined) call.args = step.args;
    const checked = guard.check(call);
    const action = wouldBe(checked);
    if (action === "block" || action === "stop") {
      const before = lastResult.get(entry.call);
      vetoes.push({
        index: entry.index,
        tool: step.tool,
        action,
        detector: checked.wouldBe?.detector ?? checked.detector,
        count: checked.count,
        costless: before !== undefined && before.result === entry.result,
        message: checked.message,
        step,
        previous: before?.step ?? null,
      });
    } else if (action === "warn") {
      warnings.push({ index: entry.index, at: "check", detector: checked.wouldBe?.detector ?? checked.detector, message: checked.message });
    }
    const outcome = {};
    if (step.error !== undefined) outcome.error = step.error;
    else if ("result" in step) outcome.result = step.result;
    const recorded = guard.record({ ...call, ...outcome });
    const bytes = outcomeBytes(outcome);
    resultBytes += bytes;
    if (recorded.sameAs !== undefined) notResent += bytes;
    if (wouldBe(recorded) === "warn") {
      warnings.push({ index: entry.index, at: "record", detector: recorded.wouldBe?.detector ?? recorded.detector, message: recorded.message });
    }
    lastResult.set(entry.call, { result: entry.result, step });
  }
  guard.endRun(runId);
  return { calls, vetoes, warnings, resultBytes, notResent };
}

/** The UTF-8 bytes of an outcome as a model reads it: a text as it is, anything else as JSON. */
function outcomeBytes(outcome) {
  const value = "error" in outcome ? outcome.error : outcome.result;
  return Buffer.byteLength(typeof value === "string" ? value : (JSON.stringify(value) ?? ""), "utf8");
}

/**
 * Replays one run with the package's engine, as `tool-loop-guard replay` does (eval/check-compact.mjs
 * compares compact and full fixtures this way): calls, calls run, the first warning and every
 * refusal with the engine's cost.
 */
export function replayRun(guard, trajectory) {
  const { summary } = replayTrajectory(guard, trajectory, { timeline: false });
  return {
    calls: summary.calls,
    ran: summary.ran,
    firstWarning: summary.firstWarning,
    refusals: summary.refusals.map(({ index, action, detector, count, cost }) => ({ index, action, detector, count, cost })),
  };
}
