// examples/cloudflare-worker in real workerd: each run's guard lives in a SQLite-backed Durable
// Object whose storage is on local disk. The update_task incident, sent call by call as HTTP
// requests, gets exactly the verdicts of the same replay in-process (so it is refused at the same
// call), also when workerd is killed (SIGKILL) and started again mid-trace, after a refusal, after
// a warning, or between a check and its record; a run the object's
// alarm expires starts afresh, as does one ended with POST /end; bad records get 400 with the
// guard's error code and field; a body nested 10,000 levels deep, one of 40 MiB and an overlong
// run id are refused (400 / 413) before any object is addressed, and the run's verdicts stay the
// in-process ones; a caller's live runs and request rate are bounded (429 with Retry-After);
// requests without a valid bearer token get 401 and change nothing, and another caller's requests
// on the same run id reach only that caller's own run.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { binary, run } from "../runtimes/support.mjs";
import { assertAccessRule } from "./access.mjs";
import { bearer } from "./callers.mjs";
import { assertBodyBounds, assertCallerLimits } from "./limits.mjs";
import { callsOf, firstRefusal, httpGuard, loadTrace, replay, replayInProcess } from "./trace.mjs";
import { wranglerConfig, workerHost } from "./worker-host.mjs";

const incident = loadTrace("01-update-task-incident.json");
// Long enough that no pause between two requests of a replay on a loaded machine reaches it.
const RETENTION_MS = 2500;
let host;
let expiring;
let misconfigured;
let limited;
const LIMITS = { maxLiveRuns: 3, ratePerMinute: 30 };

before(async () => {
  [host, expiring, misconfigured, limited] = await Promise.all([
    workerHost({ vars: { GUARD_CONFIG: incident.configs.default } }),
    workerHost({ vars: { GUARD_CONFIG: incident.configs.strict, RUN_RETENTION_MS: String(RETENTION_MS) } }),
    workerHost({ vars: { GUARD_TOKENS: '{"agent-a": "short"}' } }),
    workerHost({ vars: { GUARD_CONFIG: incident.configs.default, MAX_LIVE_RUNS: String(LIMITS.maxLiveRuns), RATE_PER_MINUTE: String(LIMITS.ratePerMinute) } }),
  ]);
});

after(async () => {
  await Promise.all([host?.stop(), expiring?.stop(), misconfigured?.stop(), limited?.stop()]);
});

test(`wrangler.jsonc declares the Worker this test runs (workerd ${run(binary("workerd"), ["--version"]).stdout.trim()})`, () => {
  const wrangler = wranglerConfig();
  assert.equal(wrangler.main, "src/worker.js");
  assert.deepEqual(wrangler.durable_objects.bindings, [
    { name: "RUN_GUARD", class_name: "RunGuard" },
    { name: "CALLER_LEDGER", class_name: "CallerLedger" },
  ]);
  assert.deepEqual(wrangler.migrations.flatMap((m) => m.new_sqlite_classes), ["RunGuard", "CallerLedger"]);
});

test("the incident over HTTP, workerd killed and restarted mid-trace: the in-process verdicts, refused at the same call", async (t) => {
  const calls = callsOf(incident, "incident-default");
  const expected = await replayInProcess(calls, incident.configs.default);
  const refusedAt = firstRefusal(expected);
  assert.notEqual(refusedAt, null, "the incident is refused in-process");
  // Restart between the first warning and the refusal, where the stored state decides the verdict.
  const warnedAt = expected.find((s) => s.check.action === "warn" || s.record?.action === "warn")?.n ?? 1;
  const restartBefore = Math.min(warnedAt + 1, refusedAt);
  const got = await replay(calls, httpGuard(host.url), {
    before: async (n) => {
      if (n !== restartBefore) return;
      await host.kill();
      await host.start();
    },
  });
  assert.deepEqual(got, expected, host.output());
  assert.equal(firstRefusal(got), refusedAt);
  t.diagnostic(`refused at call ${refusedAt} of ${calls.length} (warned at ${warnedAt}); workerd killed and restarted before call ${restartBefore}`);
});

test("refusals and warnings are persisted; a restart between a check and its record changes no verdict", async (t) => {
  const calls = callsOf(incident, "incident-gaps");
  const expected = await replayInProcess(calls, incident.configs.default);
  const refusedAt = firstRefusal(expected);
  const warnedAt = expected.find((s) => s.check.action === "warn")?.n;
  const allowedAt = expected.find((s) => s.check.action === "allow" && s.n > 1).n;
  const restarts = [];
  const restart = async (where) => {
    restarts.push(where);
    await host.kill();
    await host.start();
  };
  const got = await replay(calls, httpGuard(host.url), {
    // Right after a refusal and after a warning given at check...
    before: async (n) => (n === refusedAt + 1 || (warnedAt !== undefined && n === warnedAt + 1)) && restart(`before call ${n}`),
    // ...and between a plain allow and its record (the pending call was only in memory).
    beforeRecord: async (n) => (n === allowedAt || (warnedAt !== undefined && n === warnedAt)) && restart(`between check and record of call ${n}`),
  });
  assert.deepEqual(got, expected, host.output());
  t.diagnostic(`workerd killed and restarted: ${restarts.join(", ")}`);
});

test("strict preset: the same verdicts as in-process; the alarm forgets an idle run; POST /end forgets a run", async (t) => {
  const guard = httpGuard(expiring.url);
  const calls = callsOf(incident, "incident-strict");
  const expected = await replayInProcess(calls, incident.configs.strict);
  assert.deepEqual(await replay(calls, guard), expected, expiring.output());
  const { result, error, ...first } = calls[0];
  const fresh = await replayInProcess([first], incident.configs.strict);
  assert.notEqual((await guard.check(first)).action, "allow", "the run is still refused before it expires");
  await new Promise((resolve) => setTimeout(resolve, RETENTION_MS + 700));
  assert.deepEqual(await guard.check(first), fresh[0].check, "after RUN_RETENTION_MS the run starts again");

  await replay(callsOf(incident, "incident-ended"), guard);
  assert.deepEqual(await guard.post("end", { runId: "incident-ended" }), { ended: true });
  assert.deepEqual(await guard.check({ ...first, runId: "incident-ended" }), { ...fresh[0].check, runId: "incident-ended" });
  t.diagnostic(`strict: refused at call ${firstRefusal(expected)}`);
});

test("bad requests get 400 with the guard's error code and field, and the run keeps working", async () => {
  const post = (body) => fetch(`${host.url}/check`, { method: "POST", body, headers: bearer() });
  const answers = [];
  for (const body of ["not json", JSON.stringify({ tool: "t" }), JSON.stringify({ runId: "bad", tool: 7 }), JSON.stringify({ runId: "bad", tool: "t", args: {}, extra: 1 })]) {
    const response = await post(body);
    answers.push([response.status, (await response.json()).code]);
  }
  assert.deepEqual(answers, [[400, "invalid_record"], [400, "invalid_record"], [400, "invalid_record"], [400, "invalid_record"]]);
  const ok = await httpGuard(host.url).check({ runId: "bad", tool: "t" });
  assert.equal(ok.action, "allow");
});

test("access: without a valid bearer token nothing gets in; another caller's run id is its own run", async (t) => {
  t.diagnostic(await assertAccessRule(host.url, { trace: incident, config: incident.configs.default, runId: "guarded" }));
  const response = await fetch(`${misconfigured.url}/check`, { method: "POST", body: JSON.stringify({ runId: "r", tool: "t" }) });
  assert.deepEqual([response.status, (await response.json()).code], [500, "unconfigured"], "a malformed GUARD_TOKENS secret lets nobody in");
});

test("a body nested 10,000 deep, one of 40 MiB and an overlong run id get 400 / 413 before any object; the run goes on unchanged", async (t) => {
  t.diagnostic(await assertBodyBounds(host.url, { trace: incident, config: incident.configs.default, runId: "bounded" }));
});

test("per caller: live runs and request rate are bounded with a typed 429 and Retry-After; other callers are not", async (t) => {
  t.diagnostic(await assertCallerLimits(limited.url, { ...LIMITS, retentionS: Number(wranglerConfig().vars.RUN_RETENTION_MS) / 1000 }));
});
