// The access rule both host recipes document, checked the same way against each: requests without
// a valid bearer token are refused (401) and change nothing, and a caller with a valid token of its
// own cannot reach another caller's run: its requests on the same run id touch only its own run.
// The owner's verdicts over the whole trace stay exactly the in-process ones.
import assert from "node:assert/strict";
import { CALLERS } from "./callers.mjs";
import { callsOf, firstRefusal, httpGuard, replay, replayInProcess } from "./trace.mjs";

/** Headers of requests that must not get in. */
const INTRUDERS = [
  {},
  { authorization: "Bearer" },
  { authorization: `Bearer ${CALLERS["agent-a"]}x` },
  { authorization: `Bearer ${CALLERS["agent-a"].slice(0, -1)}` },
  { authorization: `Basic ${Buffer.from(`agent-a:${CALLERS["agent-a"]}`).toString("base64")}` },
  { authorization: `Bearer ${JSON.stringify(CALLERS)}` },
];

/** Every route tried by every intruder on the owner's run: the statuses seen. */
async function intrude(url, call) {
  const { result, error, ...proposed } = call;
  const statuses = new Set();
  for (const headers of INTRUDERS) {
    for (const [op, body] of [["check", proposed], ["record", call], ["end", { runId: call.runId }]]) {
      const response = await fetch(`${url}/${op}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
      await response.text();
      statuses.add(response.status);
    }
  }
  return [...statuses];
}

/**
 * Caller agent-a replays `trace` on run `runId` against the host at `url`; half-way to its first
 * refusal, unauthenticated requests try every route on that run and caller agent-b records the
 * same outcome many times and ends "the run" with its own valid token. Asserts the intruders got
 * 401, agent-b's requests were its own run's (its first check is a fresh run's), and agent-a's
 * verdicts are the in-process ones. Returns a line for the test's diagnostics.
 */
export async function assertAccessRule(url, { trace, config, runId }) {
  const calls = callsOf(trace, runId);
  const expected = await replayInProcess(calls, config);
  const refusedAt = firstRefusal(expected);
  assert.notEqual(refusedAt, null);
  const split = Math.max(2, Math.ceil(refusedAt / 2));
  let statuses;
  let foreignFirst;
  const got = await replay(calls, httpGuard(url), {
    before: async (n) => {
      if (n !== split) return;
      statuses = await intrude(url, calls[n - 1]);
      const foreign = httpGuard(url, { caller: "agent-b" });
      const { result, error, ...proposed } = calls[n - 1];
      foreignFirst = await foreign.check(proposed);
      for (let i = 0; i < 2 * refusedAt; i += 1) await foreign.record({ ...calls[n - 1], callId: `foreign-${i}` });
      assert.deepEqual(await foreign.post("end", { runId }), { ended: true });
    },
  });
  assert.deepEqual(statuses, [401], "every request without a valid token was refused");
  const { result, error, ...first } = calls[split - 1];
  assert.deepEqual(foreignFirst, (await replayInProcess([first], config))[0].check, "the other caller's run id named a fresh run of its own");
  assert.deepEqual(got, expected, "the owner's verdicts are unchanged");
  return `${INTRUDERS.length * 3} unauthenticated requests got 401 and ${2 * refusedAt + 2} requests of another caller on the same run id before call ${split} changed nothing: refused at call ${refusedAt} as in-process`;
}
