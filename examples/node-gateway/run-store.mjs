// Keeps each run's guard state in Redis, so any gateway process can serve any call of a run and a
// restart loses nothing: the run's snapshot (LoopGuard.exportRun: fingerprints and counters, no
// raw arguments or results) sits in a hash `<prefix><runId>` = {rev, snap} with a TTL.
//
// Updates are optimistic: a request reads {rev, snap}, restores the run into the process's guard,
// runs check() or record(), exports the run, and writes it back with a Lua script that stores it
// only if `rev` is still the one read (compare-and-set). On a conflict the script answers with
// the current {rev, snap} and the request runs again on that state, so concurrent requests for
// one run (in one process or several) are applied one after the other and none is lost. Restore,
// guard call and export are synchronous, so requests sharing the process's guard cannot interleave
// between them.
//
// Live runs can be bounded (`maxRuns`): a sorted set `runsKey` holds the store's run ids scored by
// when each one lapses (its key's TTL), and the same script refuses to create a run beyond
// `maxRuns` live ones (RunQuotaError, saying when the soonest lapses); existing runs go on.
import { createHash } from "node:crypto";
import { RESP_TYPES } from "redis";
import { LoopGuardError } from "tool-loop-guard";

/**
 * Compare-and-set of one run. KEYS[1] the run's hash, KEYS[2] the sorted set of live runs (used
 * when ARGV[5] > 0); ARGV: expected rev ("0": none), snapshot, TTL (ms), run id, the most live runs
 * (0: no bound). Answers {1, rev} (stored), {0, rev, snap} (changed since read: the current state)
 * or {2, ms} (a new run beyond the bound: the soonest live run lapses in ms).
 */
const SAVE_IF_UNCHANGED = `
local current = redis.call('HMGET', KEYS[1], 'rev', 'snap')
if (current[1] or '0') ~= ARGV[1] then
  return {0, current[1], current[2]}
end
local max = tonumber(ARGV[5])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if max > 0 and not current[1] then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if not redis.call('ZSCORE', KEYS[2], ARGV[4]) and redis.call('ZCARD', KEYS[2]) >= max then
    local soonest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return {2, tostring(tonumber(soonest[2]) - now)}
  end
end
local rev = tostring(tonumber(ARGV[1]) + 1)
redis.call('HSET', KEYS[1], 'rev', rev, 'snap', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if max > 0 then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[4])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return {1, rev}
`;

/** The script's SHA-1, which EVALSHA names it by. */
const SAVE_SHA1 = createHash("sha1").update(SAVE_IF_UNCHANGED).digest("hex");

/** Thrown when a run kept changing under a request for `maxAttempts` attempts. */
export class RunConflictError extends Error {
  constructor(runId, attempts) {
    super(`run ${JSON.stringify(runId)} changed under this request ${attempts} times in a row`);
    this.name = "RunConflictError";
  }
}

/** Thrown when a request would start a run beyond the store's `maxRuns` live ones. */
export class RunQuotaError extends Error {
  constructor(maxRuns, retryAfterMs) {
    super(`this caller has ${maxRuns} live runs: end one (POST /end) or wait until one lapses`);
    this.name = "RunQuotaError";
    /** When the soonest live run lapses (ms). */
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * Puts the stored state of the run into `guard` (none: a fresh run). A snapshot this version
 * cannot read (corrupt, or a format from another version) is dropped: the run starts again and
 * the next write replaces it.
 */
function restore(guard, runId, snap) {
  guard.endRun(runId);
  if (snap === null) return;
  try {
    guard.importRun(snap);
  } catch (error) {
    if (!(error instanceof LoopGuardError) || error.code !== "invalid_snapshot") throw error;
    console.warn(`run ${JSON.stringify(runId)}: stored snapshot dropped (${error.message}); the run starts again`);
  }
}

export class RedisRunStore {
  #redis;
  #prefix;
  #ttlMs;
  #maxAttempts;
  #runsKey;
  #maxRuns;
  /** Writes that found the run changed since it was read (each one ran the request again). */
  conflicts = 0;

  /**
   * `redis`: a connected node-redis client. Options: `prefix` of the run keys, `ttlMs` after the
   * last write (default 7 days), `maxAttempts` per request before RunConflictError (default 50;
   * every round of concurrent writers lets one through, so N concurrent requests for one run need
   * at most N attempts), `maxRuns` live runs (default: no bound) listed in the sorted set
   * `runsKey` (a key outside `prefix`; required with `maxRuns`).
   */
  constructor(redis, { prefix = "tlg:run:", ttlMs = 7 * 24 * 60 * 60 * 1000, maxAttempts = 50, maxRuns = 0, runsKey } = {}) {
    if (maxRuns > 0 && typeof runsKey !== "string") throw new TypeError("RedisRunStore: maxRuns needs a runsKey");
    this.#redis = redis.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    this.#prefix = prefix;
    this.#ttlMs = ttlMs;
    this.#maxAttempts = maxAttempts;
    this.#maxRuns = maxRuns;
    this.#runsKey = runsKey;
  }

  #key(runId) {
    return `${this.#prefix}${runId}`;
  }

  /** {rev, snap}: the stored revision ("0" when the run has none) and snapshot (or null). */
  async load(runId) {
    const [rev, snap] = await this.#redis.hmGet(this.#key(runId), ["rev", "snap"]);
    return { rev: rev === null ? "0" : rev.toString(), snap };
  }

  /**
   * Stores `snap` as revision rev + 1 if the run is still at `rev`: {saved: true} or {saved: false,
   * rev, snap} (the current state); RunQuotaError for a new run beyond `maxRuns`.
   */
  async save(runId, rev, snap) {
    const snapshot = Buffer.from(snap.buffer, snap.byteOffset, snap.byteLength);
    // Without a bound the set is never touched: the run's own key stands in for it.
    const args = ["2", this.#key(runId), this.#runsKey ?? this.#key(runId), rev, snapshot, String(this.#ttlMs), runId, String(this.#maxRuns)];
    let reply;
    try {
      reply = await this.#redis.sendCommand(["EVALSHA", SAVE_SHA1, ...args]);
    } catch (error) {
      if (!String(error?.message).startsWith("NOSCRIPT")) throw error;
      reply = await this.#redis.sendCommand(["EVAL", SAVE_IF_UNCHANGED, ...args]);
    }
    if (reply[0] === 1) return { saved: true };
    if (reply[0] === 2) throw new RunQuotaError(this.#maxRuns, Number(reply[1].toString()));
    return { saved: false, rev: reply[1] === null ? "0" : reply[1].toString(), snap: reply[2] };
  }

  /** Deletes the run's state (and its place among the live runs). */
  async delete(runId) {
    await this.#redis.del(this.#key(runId));
    if (this.#maxRuns > 0) await this.#redis.zRem(this.#runsKey, runId);
  }

  /**
   * Runs `op()` (a synchronous call on `guard`, e.g. `() => guard.check(call)`) on the run's
   * stored state and stores the state it leaves, retrying on a concurrent change; returns op's
   * result once it is stored. The run is not kept in the guard afterwards (its state lives in
   * Redis). A LoopGuardError from `op` (a bad record) is thrown without storing anything.
   */
  async update(guard, runId, op) {
    let { rev, snap } = await this.load(runId);
    for (let attempt = 1; ; attempt++) {
      let result;
      let next;
      try {
        restore(guard, runId, snap);
        result = op();
        next = guard.exportRun(runId);
      } finally {
        guard.endRun(runId);
      }
      const saved = await this.save(runId, rev, next);
      if (saved.saved) return result;
      this.conflicts += 1;
      if (attempt >= this.#maxAttempts) throw new RunConflictError(runId, attempt);
      ({ rev, snap } = saved);
    }
  }
}
