// The bounds both host recipes document, checked the same way against each: what one request may
// carry (a body of at most 16 MiB nested at most 128 levels deep, a run id of at most 256
// characters), answered with a typed 400 / 413 that changes nothing, and what one caller may use
// (live runs, requests a minute), answered with a typed 429 and Retry-After.
import assert from "node:assert/strict";
import { bearer } from "./callers.mjs";
import { callsOf, firstRefusal, httpGuard, replay, replayInProcess } from "./trace.mjs";

/** POST `body` (a string) to `url`/`op` as `caller`: [status, parsed answer, Retry-After header]. */
async function post(url, op, body, caller = "agent-a") {
  const response = await fetch(`${url}/${op}`, { method: "POST", body, headers: { "content-type": "application/json", ...bearer(caller) } });
  const text = await response.text();
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = { unparsed: text.slice(0, 300) };
  }
  return [response.status, answer, response.headers.get("retry-after")];
}

/** `[[[...]]]`: arrays nested `depth` levels. */
const nested = (depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

/**
 * Caller agent-a replays `trace` on run `runId`; half-way to its first refusal, requests on the
 * same run id too deep (10,000 levels), too large (40 MiB) or with a run id of 257 characters are
 * sent to every route. Asserts each got its typed answer ({code, field, message}), that the
 * owner's verdicts are the in-process ones, that the guard's own depth limit (127 levels in a
 * field) is the one that shows below the host's and that a run id of 256 characters is served.
 * Returns a line for the test's diagnostics.
 */
export async function assertBodyBounds(url, { trace, config, runId }) {
  const calls = callsOf(trace, runId);
  const expected = await replayInProcess(calls, config);
  const refusedAt = firstRefusal(expected);
  assert.notEqual(refusedAt, null);
  const split = Math.max(2, Math.ceil(refusedAt / 2));
  const seen = [];
  const got = await replay(calls, httpGuard(url), {
    before: async (n) => {
      if (n !== split) return;
      const head = JSON.stringify({ runId, tool: calls[n - 1].tool }).slice(0, -1);
      const deep = `${head},"args":${nested(10_000)}}`;
      const huge = `${head},"result":"${"x".repeat(40 * 1024 * 1024)}"}`;
      for (const op of ["check", "record"]) {
        const [status, answer] = await post(url, op, deep);
        seen.push([op, "10,000 deep", status, answer.code, answer.field]);
        assert.deepEqual([status, answer.code, answer.field, typeof answer.message], [400, "too_deep", "args", "string"], JSON.stringify(answer));
      }
      const [status, answer] = await post(url, "record", huge);
      seen.push(["record", "40 MiB", status, answer.code]);
      assert.deepEqual([status, answer.code, typeof answer.message], [413, "too_large", "string"], JSON.stringify(answer));
      for (const op of ["check", "record", "end"]) {
        const [long, refused] = await post(url, op, JSON.stringify({ ...calls[n - 1], runId: "r".repeat(257) }));
        assert.deepEqual([long, refused.code, refused.field], [400, "invalid_record", "runId"], JSON.stringify(refused));
      }
    },
  });
  assert.deepEqual(got, expected, "the owner's verdicts are unchanged");
  // Under the host's bounds the guard's own limits answer, with the same code and field.
  const guardLimit = await post(url, "check", JSON.stringify({ runId: "depth", tool: "t", args: JSON.parse(nested(127)) }));
  assert.equal(guardLimit[0], 200, JSON.stringify(guardLimit[1]));
  const overGuardLimit = await post(url, "check", JSON.stringify({ runId: "depth", tool: "t", args: JSON.parse(nested(128)) }));
  assert.deepEqual([overGuardLimit[0], overGuardLimit[1].code, overGuardLimit[1].field], [400, "too_deep", "args"]);
  const longest = await post(url, "check", JSON.stringify({ runId: "r".repeat(256), tool: "t" }));
  assert.equal(longest[0], 200, JSON.stringify(longest[1]));
  return `before call ${split}: ${seen.map((s) => s.join(" ")).join("; ")}; a 257-character run id 400 on every route; refused at call ${refusedAt} as in-process`;
}

/** A check of tool `t` in run `runId` as `caller`: [status, answer, Retry-After]. */
const checkIn = (url, runId, caller = "agent-a") => post(url, "check", JSON.stringify({ runId, tool: "t" }), caller);

/**
 * Against a host configured with `maxLiveRuns` live runs and `ratePerMinute` requests a minute per
 * caller, whose runs are kept `retentionS` seconds after their last request: agent-a fills its
 * runs and is refused one more (429 too_many_runs, Retry-After about the retention) while its live
 * runs and agent-b are served, until it ends one; agent-b spends its requests until refused (429
 * rate_limited, Retry-After within one token's refill) while agent-a is served, and is served
 * again after Retry-After. Returns a line for the test's diagnostics.
 */
export async function assertCallerLimits(url, { maxLiveRuns, ratePerMinute, retentionS }) {
  for (let i = 1; i <= maxLiveRuns; i++) assert.equal((await checkIn(url, `live-${i}`))[0], 200);
  const [status, refused, retryAfter] = await checkIn(url, "one-more");
  assert.deepEqual([status, refused.code, refused.field, typeof refused.message], [429, "too_many_runs", "runId", "string"], JSON.stringify(refused));
  assert.ok(Number(retryAfter) > retentionS - 120 && Number(retryAfter) <= retentionS, `Retry-After ${retryAfter}: when the oldest run lapses`);
  assert.equal((await checkIn(url, "live-1"))[0], 200, "a live run is still served");
  assert.equal((await checkIn(url, "one-more", "agent-b"))[0], 200, "another caller has its own live runs");
  assert.deepEqual((await post(url, "end", JSON.stringify({ runId: "live-2" })))[0], 200);
  const [admitted, first] = await checkIn(url, "one-more");
  assert.equal(admitted, 200, "an ended run frees its place");
  assert.equal(first.action, "allow");

  // agent-b has made one request; its bucket refills one token every 60 / ratePerMinute seconds.
  let served = 1;
  let limited;
  while (served <= ratePerMinute + 5) {
    const answer = await checkIn(url, "rate", "agent-b");
    if (answer[0] !== 200) {
      limited = answer;
      break;
    }
    served++;
  }
  assert.ok(limited !== undefined, `${served} requests were all served`);
  const [limitedStatus, limitedAnswer, wait] = limited;
  assert.deepEqual([limitedStatus, limitedAnswer.code, typeof limitedAnswer.message], [429, "rate_limited", "string"], JSON.stringify(limitedAnswer));
  assert.ok(served >= ratePerMinute && served <= ratePerMinute + 2, `${served} requests served before the first 429`);
  const tokenS = 60 / ratePerMinute;
  assert.ok(Number(wait) >= 1 && Number(wait) <= Math.ceil(tokenS), `Retry-After ${wait} within one token (${tokenS} s)`);
  assert.equal((await checkIn(url, "live-1"))[0], 200, "another caller's rate is its own");
  await new Promise((resolve) => setTimeout(resolve, Number(wait) * 1000));
  assert.equal((await checkIn(url, "rate", "agent-b"))[0], 200, "served again after Retry-After");
  return `${maxLiveRuns} live runs, then 429 too_many_runs (Retry-After ${retryAfter} s) until one ended; ${served} requests in a burst, then 429 rate_limited (Retry-After ${wait} s), served again after it`;
}
