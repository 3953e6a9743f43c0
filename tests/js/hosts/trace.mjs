// Replays a recorded trace (examples/traces/*.json) the way a host loop does, against any guard
// with `check` and `record` (in-process, or over HTTP to a Worker or a gateway): check before each
// call; a refused call is not run (no record); a stop ends the run. The expected verdicts of every
// host test come from replaying the same trace in-process with the same config, never from
// hard-coded call numbers, so a preset change moves both sides alike.
import fs from "node:fs";
import path from "node:path";
import { LoopGuard } from "tool-loop-guard";
import { root } from "../runtimes/support.mjs";
import { bearer } from "./callers.mjs";

/** examples/traces/<file>, parsed. */
export function loadTrace(file) {
  return JSON.parse(fs.readFileSync(path.join(root, "examples", "traces", file), "utf8"));
}

/** The trace's calls as a host sends them: in run `runId`, each with its own callId. */
export function callsOf(trace, runId) {
  return trace.calls.map((call, i) => ({ runId, callId: `call-${i + 1}`, ...call }));
}

/**
 * Replays `calls` against `guard` ({check, record}, sync or async). Hooks (optional, awaited, n is
 * 1-based): `before(n)` before call n's check, `beforeRecord(n)` between its check and its record.
 * Returns [{n, check, record?}] with every verdict.
 */
export async function replay(calls, guard, { before = async () => {}, beforeRecord = async () => {} } = {}) {
  const steps = [];
  for (const [index, call] of calls.entries()) {
    const n = index + 1;
    await before(n);
    const { result, error, ...proposed } = call;
    const check = await guard.check(proposed);
    const step = { n, check };
    steps.push(step);
    if (check.action === "stop") break;
    if (check.action === "block") continue;
    await beforeRecord(n);
    step.record = await guard.record(call);
  }
  return steps;
}

/** The same replay in this process (Node entry of pkg/) with `config`; the verdicts as JSON data. */
export async function replayInProcess(calls, config) {
  const guard = new LoopGuard(config);
  try {
    return JSON.parse(JSON.stringify(await replay(calls, guard)));
  } finally {
    guard.free();
  }
}

/** The 1-based number of the first call refused (block or stop), or null. */
export function firstRefusal(steps) {
  return steps.find((s) => s.check.action === "block" || s.check.action === "stop")?.n ?? null;
}

/**
 * A guard over HTTP (the Worker's and the gateway's API): POST /check and /record to `baseUrl`, a
 * URL or a function giving the URL for each request, as `caller` (callers.mjs). A non-200 answer
 * throws.
 */
export function httpGuard(baseUrl, { caller = "agent-a" } = {}) {
  const post = async (op, body) => {
    const base = typeof baseUrl === "function" ? baseUrl() : baseUrl;
    const headers = { "content-type": "application/json", ...bearer(caller) };
    const response = await fetch(`${base}/${op}`, { method: "POST", body: JSON.stringify(body), headers });
    const answer = await response.json();
    if (response.status !== 200) throw new Error(`${op} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  return { check: (call) => post("check", call), record: (outcome) => post("record", outcome), post };
}
