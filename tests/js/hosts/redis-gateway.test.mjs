// examples/node-gateway: two gateway processes share runs through a real Redis (Debian's
// redis-server on 127.0.0.1, AOF with an fsync per write). The update_task incident served by
// alternating processes gets exactly the verdicts of one process and of the in-process replay;
// concurrent records of one run, fired at both processes at once, all count (none lost, none
// applied twice), also after Redis is killed and restarted; a Redis restart mid-trace loses
// nothing that was acknowledged, and while Redis is down requests fail with 503 and change nothing;
// a body nested 10,000 levels deep, one of 40 MiB and an overlong run id get a typed 400 / 413 and
// change nothing; a caller's live runs and request rate are bounded (429 with Retry-After);
// requests without a valid bearer token get 401 and change nothing, another caller's requests on
// the same run id reach only that caller's own run, and the gateway does not start without tokens.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { binary, run } from "../runtimes/support.mjs";
import { startGateway } from "./gateway-host.mjs";
import { startRedis } from "./redis.mjs";
import { assertAccessRule } from "./access.mjs";
import { bearer } from "./callers.mjs";
import { assertBodyBounds, assertCallerLimits } from "./limits.mjs";
import { callsOf, firstRefusal, httpGuard, loadTrace, replay, replayInProcess } from "./trace.mjs";

const incident = loadTrace("01-update-task-incident.json");
const config = incident.configs.default;
let redis;
let gateways = [];

before(async () => {
  redis = await startRedis();
  gateways = await Promise.all([startGateway({ redisUrl: redis.url, config }), startGateway({ redisUrl: redis.url, config })]);
});

after(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await redis?.stop();
});

const outputs = () => [redis, ...gateways].map((p) => p.output()).join("\n---\n");

/** Restarts Redis (SIGKILL, then the same port and data) and waits until both gateways reach it. */
async function restartRedis() {
  await redis.kill();
  await redis.start();
  await Promise.all(gateways.map((g) => g.waitHealthy()));
}

test(`two gateways serving alternate calls give the verdicts of one gateway and of in-process (${run(binary("redis"), ["--version"]).stdout.trim().split(" ").slice(0, 3).join(" ")})`, async (t) => {
  const expected = await replayInProcess(callsOf(incident, "one"), config);
  const single = await replay(callsOf(incident, "one"), httpGuard(gateways[0].url));
  let serving = 0;
  const alternating = await replay(
    callsOf(incident, "two"),
    httpGuard(() => gateways[serving].url),
    {
      before: async (n) => {
        serving = n % 2;
      },
    },
  );
  const rename = (steps) => JSON.parse(JSON.stringify(steps).replaceAll('"runId":"two"', '"runId":"one"'));
  assert.deepEqual(single, expected, outputs());
  assert.deepEqual(rename(alternating), expected, outputs());
  assert.notEqual(firstRefusal(expected), null);
  t.diagnostic(`refused at call ${firstRefusal(expected)} by one process, by two alternating processes and in-process`);
});

/** In-process: the verdict of checking `call` after `records` identical outcomes of it. */
function checkAfterRecords(LoopGuard, call, outcome, records) {
  const guard = new LoopGuard(config);
  for (let i = 0; i < records; i++) guard.record({ ...outcome, callId: `r${i}` });
  const verdict = JSON.parse(JSON.stringify(guard.check(call)));
  guard.free();
  return verdict;
}

test("concurrent records of one run at both gateways: every one counts once, also after a Redis restart", async (t) => {
  const N = 40;
  const { result, ...call } = { ...incident.calls[0], runId: "concurrent" };
  const outcome = { ...call, result };
  const { LoopGuard } = await import("tool-loop-guard");
  const expected = checkAfterRecords(LoopGuard, call, outcome, N);
  // The check tells N records from N - 1 and N + 1, so a lost or doubled update would show.
  assert.notDeepEqual(checkAfterRecords(LoopGuard, call, outcome, N - 1), expected);
  assert.notDeepEqual(checkAfterRecords(LoopGuard, call, outcome, N + 1), expected);

  const conflictsBefore = await Promise.all(gateways.map(async (g) => (await g.health())[1].conflicts));
  await Promise.all(Array.from({ length: N }, (_, i) => httpGuard(gateways[i % 2].url).record({ ...outcome, callId: `r${i}` })));
  const conflicts = await Promise.all(gateways.map(async (g, i) => (await g.health())[1].conflicts - conflictsBefore[i]));
  assert.ok(conflicts[0] + conflicts[1] > 0, "the records really were concurrent (some writes were retried)");
  await restartRedis();
  assert.deepEqual(await httpGuard(gateways[1].url).check(call), expected, outputs());
  t.diagnostic(`${N} concurrent records (${conflicts.join(" + ")} writes retried), Redis killed and restarted; then ${expected.action} ${expected.detector} count ${expected.count}`);
});

test("Redis killed and restarted mid-trace: nothing acknowledged is lost; while it is down, requests get 503 and change nothing", async (t) => {
  const calls = callsOf(incident, "restart");
  const expected = await replayInProcess(calls, config);
  const restartBefore = Math.ceil(firstRefusal(expected) / 2);
  const guard = httpGuard(() => gateways[0].url);
  let refused;
  const got = await replay(calls, guard, {
    before: async (n) => {
      if (n !== restartBefore) return;
      await redis.kill();
      const { result, error, ...call } = calls[n - 1];
      const response = await fetch(`${gateways[0].url}/check`, { method: "POST", body: JSON.stringify(call), headers: bearer() });
      refused = [response.status, (await response.json()).code];
      await redis.start();
      await Promise.all(gateways.map((g) => g.waitHealthy()));
    },
  });
  assert.deepEqual(refused, [503, "store_unavailable"]);
  assert.deepEqual(got, expected, outputs());
  t.diagnostic(`Redis killed before call ${restartBefore}; refused at call ${firstRefusal(got)} as in-process`);
});

test("bad requests get 400 with the guard's error code and field; POST /end forgets the run", async () => {
  const post = async (path, body) => {
    const response = await fetch(`${gateways[0].url}${path}`, { method: "POST", body, headers: bearer() });
    return [response.status, (await response.json()).code];
  };
  assert.deepEqual(await post("/check", "not json"), [400, "invalid_record"]);
  assert.deepEqual(await post("/check", JSON.stringify({ tool: "t" })), [400, "invalid_record"]);
  assert.deepEqual(await post("/record", JSON.stringify({ runId: "bad", tool: "t", extra: 1 })), [400, "invalid_record"]);
  const calls = callsOf(incident, "ended");
  await replay(calls, httpGuard(gateways[1].url));
  assert.deepEqual(await post("/end", JSON.stringify({ runId: "ended" })), [200, undefined]);
  const { result, ...first } = calls[0];
  const fresh = await replayInProcess([first], config);
  assert.deepEqual(await httpGuard(gateways[0].url).check(first), fresh[0].check);
});

test("access: without a valid bearer token nothing gets in; another caller's run id is its own run; no tokens, no gateway", async (t) => {
  t.diagnostic(await assertAccessRule(gateways[0].url, { trace: incident, config, runId: "guarded" }));
  await assert.rejects(startGateway({ redisUrl: redis.url, config, tokens: "" }), /GUARD_TOKENS must be a JSON object/);
});

test("a body nested 10,000 deep, one of 40 MiB and an overlong run id get 400 / 413; the run goes on unchanged", async (t) => {
  t.diagnostic(await assertBodyBounds(gateways[0].url, { trace: incident, config, runId: "bounded" }));
});

test("per caller: live runs and request rate are bounded with a typed 429 and Retry-After; other callers are not", async (t) => {
  const limits = { maxLiveRuns: 3, ratePerMinute: 30 };
  // Redis database 1: the other tests' runs and requests (database 0) are not this caller's.
  const limited = await startGateway({ redisUrl: `${redis.url}/1`, config, env: { MAX_LIVE_RUNS: String(limits.maxLiveRuns), RATE_PER_MINUTE: String(limits.ratePerMinute) } });
  try {
    t.diagnostic(await assertCallerLimits(limited.url, { ...limits, retentionS: 7 * 24 * 3600 }));
  } finally {
    await limited.stop();
  }
});
