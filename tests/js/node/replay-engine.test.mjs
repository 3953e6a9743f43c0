// The replay engine drives a LoopGuard as a gateway would: check before each call, a refused call
// is not run (its real outcome judged only to tell a costless veto from one that withheld
// information), a stop ends the run, events reach compacted/progress. It reads verdicts only.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LoopGuard } from "tool-loop-guard";
import { addToTotals, emptyTotals, PACE_MS, replayTrajectory, RunReplay } from "tool-loop-guard/replay";

const run = (steps, runId = "r") => ({ runId, format: "jsonl", meta: {}, steps });
const poll = (text, durationMs = 5) => ({ tool: "check_job", args: { id: 7 }, result: { content: [{ type: "text", text }], details: { durationMs } } });

test("a veto of a call whose real result repeats what it last got is costless, even when only volatile keys differ", () => {
  const guard = new LoopGuard({ preset: "strict" });
  const steps = [poll("running", 10), poll("running", 20), poll("running", 30), poll("running", 40)];
  const report = replayTrajectory(guard, run(steps));
  const { summary } = report;
  assert.equal(summary.calls, 4);
  assert.equal(summary.ran, 3);
  assert.equal(summary.firstRefusal, 4);
  assert.deepEqual(summary.refusals, [{ index: 4, tool: "check_job", action: "block", detector: summary.refusals[0].detector, count: summary.refusals[0].count, cost: "costless" }]);
  assert.equal(summary.costless, 1);
  assert.equal(summary.withheld, 0);
  assert.equal(report.timeline[3].record, null);
  assert.equal(report.timeline[3].cost, "costless");
  assert.equal(typeof summary.firstRefusalMessage, "string");
});

test("a veto of a call whose real result would have been new withheld information", () => {
  const guard = new LoopGuard({ preset: "strict" });
  const report = replayTrajectory(guard, run([poll("running"), poll("running"), poll("running"), poll("done")]));
  assert.deepEqual(report.summary.refusals.map((r) => [r.index, r.action, r.cost]), [[4, "block", "withheld"]]);
  assert.equal(report.summary.withheld, 1);
});

test("a veto is costless only when the same call already returned that result: other arguments and other tools do not count", () => {
  const other = (id, text) => ({ ...poll(text), args: { id } });
  const lookup = (text) => ({ tool: "lookup_job", args: { id: 7 }, result: { content: [{ type: "text", text }], details: { durationMs: 1 } } });
  const replay = (first, last) => replayTrajectory(new LoopGuard({ preset: "strict" }), run([first, poll("running"), poll("running"), poll("running"), last]));
  // The refused fifth call would have got "running" again, what it returned last time.
  const same = replay(other(8, "queued"), poll("running"));
  assert.deepEqual(same.summary.refusals.map((r) => [r.index, r.action, r.cost]), [[5, "block", "costless"]]);
  // It would have got "queued": check_job returned that, but for job 8, a different question.
  const otherArgs = replay(other(8, "queued"), poll("queued"));
  assert.deepEqual(otherArgs.summary.refusals.map((r) => [r.index, r.action, r.cost]), [[5, "block", "withheld"]]);
  // "queued" came from another tool with the same arguments: withheld too.
  const otherTool = replay(lookup("queued"), poll("queued"));
  assert.deepEqual(otherTool.summary.refusals.map((r) => [r.index, r.action, r.cost]), [[5, "block", "withheld"]]);
});

test("a stop ends the run; it is judged by the call it refused; the calls after it are not run, and saved when they repeat", () => {
  const steps = Array.from({ length: 9 }, () => poll("running"));
  const report = replayTrajectory(new LoopGuard({ preset: "strict" }), run(steps));
  const { summary } = report;
  assert.equal(summary.calls, 9);
  assert.notEqual(summary.stoppedAt, null);
  const stop = summary.refusals.at(-1);
  assert.equal(stop.action, "stop");
  assert.equal(stop.cost, "costless", "the stopped call would have returned what it returned last time");
  assert.equal(summary.notRun, 9 - summary.ran);
  assert.equal(summary.saved, summary.notRun, "every call not run would have repeated its last result");
  assert.equal(report.timeline.length, summary.stoppedAt, "no rows after the stop");
  assert.ok(summary.refusals.slice(0, -1).every((r) => r.action === "block" && r.cost === "costless"));
  // The same loop, but the stopped call would have answered "done": that stop withheld it.
  const changed = [...steps.slice(0, summary.stoppedAt - 1), poll("done")];
  const last = replayTrajectory(new LoopGuard({ preset: "strict" }), run(changed)).summary.refusals.at(-1);
  assert.deepEqual([last.action, last.cost], ["stop", "withheld"]);
});

test("calls not run whose real results would have been new are not counted as saved", () => {
  // A poll refused, then stopped, while its real status kept changing after the stop.
  const statuses = ["running", "running", "running", "running", "running", "running", "1 of 3 done", "2 of 3 done", "running"];
  const report = replayTrajectory(new LoopGuard({ preset: "strict" }), run(statuses.map((text) => poll(text))));
  const { summary } = report;
  assert.notEqual(summary.stoppedAt, null);
  assert.equal(summary.notRun, summary.calls - summary.ran);
  // Not saved: the two new statuses; saved: every other call not run (repeats of "running").
  assert.equal(summary.saved, summary.notRun - 2);
});

test("events reach the guard: a compaction arms the post-compaction guard", () => {
  const same = { tool: "search", args: { q: "x" }, result: "nothing" };
  const other = (i) => ({ tool: "read", args: { i }, result: `r${i}` });
  const steps = [same, other(1), { event: "compaction" }, same, same, same];
  const stopped = replayTrajectory(new LoopGuard(), run(steps)).summary;
  assert.equal(stopped.compactions, 1);
  assert.equal(stopped.stoppedAt, null, "post_compaction_loop fires at record, not as a refusal");
  const report = replayTrajectory(new LoopGuard(), run(steps));
  assert.ok(report.timeline.some((row) => row.record?.detector === "post_compaction_loop"));
  assert.deepEqual(report.timeline[2], { event: "compaction", after: 2 });
});

test("the engine only reads verdicts: it records what was allowed, never what was blocked", () => {
  const seen = [];
  const verdict = (action) => ({ action, level: action === "block" ? "critical" : "ok", detector: action === "block" ? "scripted" : null, count: 1, threshold: null, tool: "t", runId: "r", message: null });
  const fake = {
    check: (call) => (seen.push(["check", call.args.n, call.at]), verdict(call.args.n === 2 ? "block" : "allow")),
    record: (outcome) => (seen.push(["record", outcome.args.n, outcome.result]), verdict("allow")),
    compacted: (runId) => seen.push(["compacted", runId]),
    progress: (runId, reason) => seen.push(["progress", runId, reason]),
    endRun: (runId) => seen.push(["endRun", runId]),
    fingerprint: (record) => ({ args: String(record.args.n), outcome: record.result === undefined ? null : String(record.result) }),
  };
  const steps = [
    { tool: "t", args: { n: 1 }, result: "a", at: 1000 },
    { tool: "t", args: { n: 2 }, result: "b" },
    { event: "progress", reason: "user replied" },
    { tool: "t", args: { n: 3 }, result: "c", at: 5000 },
  ];
  const report = replayTrajectory(fake, run(steps, "r"));
  assert.deepEqual(seen, [
    ["check", 1, 1000],
    ["record", 1, "a"],
    ["check", 2, 1000 + PACE_MS], // a call without a timestamp comes a model's turn after the one before
    ["progress", "r", "user replied"],
    ["check", 3, 5000],
    ["record", 3, "c"],
    ["endRun", "r"],
  ]);
  assert.deepEqual(report.summary.refusals, [{ index: 2, tool: "t", action: "block", detector: "scripted", count: 1, cost: "withheld" }]);
});

test("RunReplay steps one at a time and totals add up", () => {
  const guard = new LoopGuard({ preset: "strict" });
  const replay = new RunReplay(guard, { runId: "one", format: "jsonl", meta: { solved: true } }, { timeline: false });
  for (let i = 0; i < 4; i++) replay.step(poll("idle"));
  const report = replay.finish();
  assert.equal(report.timeline, undefined);
  assert.deepEqual(report.meta, { solved: true });
  const other = replayTrajectory(guard, run([poll("a"), poll("b")], "two"));
  const totals = [report, other].reduce((t, r) => addToTotals(t, r.summary), emptyTotals());
  assert.deepEqual(totals, { runs: 2, calls: 6, ran: 5, notRun: 1, saved: 1, runsWarned: 2, runsRefused: 1, runsStopped: 0, refusals: 1, withheld: 0, costless: 1, resultBytes: report.summary.resultBytes + other.summary.resultBytes, notResent: 0 });
  assert.ok(report.summary.resultBytes > 0);
  assert.equal(guard.stats().liveRuns, 0, "finished runs are ended in the guard");
});

test("replays are deterministic without timestamps", () => {
  const steps = Array.from({ length: 12 }, (_, i) => ({ tool: "process", args: { action: "poll", sessionId: "s" }, result: i < 2 ? `tick ${i}` : "still running" }));
  const once = () => replayTrajectory(new LoopGuard(), run(steps)).timeline;
  assert.deepEqual(once(), once());
});

test("result bytes are UTF-8 bytes; repeats of an identical result are counted as not resent under sameAs", () => {
  const texts = ["naïve €", "emoji 😀", "cut \ud83d", "naïve €"];
  const steps = texts.map((text) => ({ tool: "read", args: { path: "a" }, result: text }));
  const { summary } = replayTrajectory(new LoopGuard({ sameAs: true }), run(steps));
  assert.equal(summary.resultBytes, texts.reduce((n, t) => n + Buffer.byteLength(t, "utf8"), 0));
  // Call 4 returns call 1's text again (other texts came between): a host could drop it.
  assert.equal(summary.notResent, Buffer.byteLength("naïve €", "utf8"));
});
