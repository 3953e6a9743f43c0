// A Cloudflare Worker that guards an agent's tool calls, one Durable Object per run.
//
//   POST /check   {runId, tool, args?, callId?, at?}                   -> Verdict (before dispatch)
//   POST /record  {runId, tool, args?, callId?, at?, result?, error?}  -> Verdict (after the tool ran)
//   POST /end     {runId}                                              -> {ended: true} (forgets the run)
//   a bad record: 400 {code, field, message} (LoopGuardError's code and field)
//
// Access: every POST carries `Authorization: Bearer <token>`, one of the tokens of the
// GUARD_TOKENS secret (`npx wrangler secret put GUARD_TOKENS`: a JSON object {caller: token},
// caller names of letters, digits, `_`, `.` and `-`). The presented token is compared with every
// configured one in constant time (SHA-256 digests, crypto.subtle.timingSafeEqual). Without a
// valid token: 401 and nothing is touched (no Durable Object is even addressed); without the
// secret every POST gets 500 `unconfigured`. Run ids are scoped by the caller: caller A's run
// "r" and caller B's run "r" are two Durable Objects, so no caller can read, poison or end
// another's runs.
//
// Bounds, checked in the Worker before any Durable Object is addressed, so that what a caller
// sends can neither break the object's RPC nor pile up objects: a body of at most 16 MiB (else
// 413 `too_large`) nested at most 128 levels deep (else 400 `too_deep`: the guard refuses any field
// deeper than 127 levels anyway, and a deeper value overflows the stack of the RPC that carries it),
// a run id of at most 256 characters (else 400 `invalid_record`, field `runId`). Per caller, its
// ledger (a Durable Object of class CallerLedger named after the caller) admits each request: at
// most RATE_PER_MINUTE requests a minute (a token bucket of that size, refilled continuously) and
// at most MAX_LIVE_RUNS live runs (a run is live from its first request until POST /end or
// RUN_RETENTION_MS after its last); beyond either, 429 `rate_limited` / `too_many_runs` with
// `Retry-After` (seconds), and nothing is touched.
//
// The Worker itself keeps nothing: it routes each request to the Durable Object named by its
// caller and runId (`RUN_GUARD.idFromName("<caller>:<runId>")`), so every call of a conversation
// meets the same guard wherever the request lands. The object (class RunGuard, SQLite-backed)
// keeps a LoopGuard in memory, writes the run's snapshot (`exportRun`: fingerprints and counters,
// ~1.1-1.3 KB) to its storage after every record and every check that did not simply allow, and
// restores it (`importRun`) when it starts again after eviction, a deploy or a crash. A request
// is answered only once its write is durable (output gate), so an acknowledged verdict is never
// lost. A run left idle for RUN_RETENTION_MS (default 7 days) is deleted by the object's alarm.
//
// Config: the GUARD_CONFIG var (a LoopGuardConfig object, e.g. {"preset": "strict"}), and
// RUN_RETENTION_MS, MAX_LIVE_RUNS, RATE_PER_MINUTE (see wrangler.jsonc).
import { DurableObject } from "cloudflare:workers";
import { LoopGuard, LoopGuardError } from "tool-loop-guard";

const SNAPSHOT_KEY = "snapshot";
const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Below the 32 MiB a Durable Object RPC argument may take, and far above any real tool call. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** The record object plus the guard's 127 levels in a field: nothing the guard accepts is refused. */
const MAX_BODY_DEPTH = 128;
const MAX_RUN_ID_LENGTH = 256;
const DEFAULT_MAX_LIVE_RUNS = 10_000;
const DEFAULT_RATE_PER_MINUTE = 6000;

/** The retention of an idle run (ms), from RUN_RETENTION_MS. */
function retentionMs(env) {
  return Number(env.RUN_RETENTION_MS ?? DEFAULT_RETENTION_MS);
}

/** A LoopGuardError as data (it crosses the RPC boundary as a plain object); anything else is rethrown. */
function failure(error) {
  if (!(error instanceof LoopGuardError)) throw error;
  return { error: { code: error.code, field: error.field, message: error.message } };
}

/** One run's guard, reached over RPC. Its name is "<caller>:<runId>"; the Worker sends it only that run's calls. */
export class RunGuard extends DurableObject {
  #guard;

  constructor(ctx, env) {
    super(ctx, env);
    this.#guard = this.#newGuard();
    const bytes = ctx.storage.kv.get(SNAPSHOT_KEY); // synchronous: SQLite-backed storage
    if (bytes !== undefined) this.#restore(bytes);
  }

  #newGuard() {
    return new LoopGuard(this.env.GUARD_CONFIG ?? undefined);
  }

  /** Restores the run; a snapshot this version cannot read (corrupt, unknown format) is dropped. */
  #restore(bytes) {
    try {
      this.#guard.importRun(bytes);
    } catch (error) {
      if (!(error instanceof LoopGuardError) || error.code !== "invalid_snapshot") throw error;
      console.warn(`RunGuard: stored snapshot dropped (${error.code}: ${error.message}); the run starts again`);
      this.ctx.storage.kv.delete(SNAPSHOT_KEY);
    }
  }

  /** Writes the run's snapshot and pushes its expiry back; both commit before the answer leaves. */
  #persist(runId) {
    this.ctx.storage.kv.put(SNAPSHOT_KEY, this.#guard.exportRun(runId));
    this.ctx.storage.setAlarm(Date.now() + retentionMs(this.env));
  }

  /**
   * Before dispatch: `{verdict}` or `{error}`. A refusal (a veto in the run) and a warning (when
   * it was last given) are persisted at once; a plain allow only marks the call pending, which its
   * record completes and persists. If the object is evicted in between (a tool running longer than
   * the idle timeout), the record still counts the call; only that check's turn towards maxTurns is
   * lost.
   */
  check(call) {
    try {
      const verdict = this.#guard.check(call);
      if (verdict.action !== "allow") this.#persist(call.runId);
      return { verdict };
    } catch (error) {
      return failure(error);
    }
  }

  /** After the tool ran: `{verdict}` or `{error}`; the run is persisted. */
  record(outcome) {
    try {
      const verdict = this.#guard.record(outcome);
      this.#persist(outcome.runId);
      return { verdict };
    } catch (error) {
      return failure(error);
    }
  }

  /** Forgets the run and deletes its storage. */
  async end(runId) {
    this.#guard.endRun(runId);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    return { ended: true };
  }

  /** The run was idle for RUN_RETENTION_MS: forget it. */
  async alarm() {
    this.#guard.free();
    this.#guard = this.#newGuard();
    await this.ctx.storage.deleteAll();
  }
}

/**
 * One caller's ledger, reached over RPC before any run of the caller is: its request rate (a token
 * bucket of RATE_PER_MINUTE requests, refilled continuously; kept in memory, so a restarted ledger
 * starts full) and its live runs (run id -> when it lapses, in a SQLite table, so a restart keeps
 * them). Named after the caller, which no RunGuard name can be (those contain ":").
 */
export class CallerLedger extends DurableObject {
  #tokens;
  #filledAt = 0;
  /** Live run id -> the time (ms) it lapses: RUN_RETENTION_MS after its last request. */
  #runs = new Map();

  constructor(ctx, env) {
    super(ctx, env);
    this.#tokens = this.#ratePerMinute();
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, lapses INTEGER NOT NULL)");
    for (const row of ctx.storage.sql.exec("SELECT run_id, lapses FROM runs")) this.#runs.set(row.run_id, row.lapses);
  }

  #ratePerMinute() {
    return Number(this.env.RATE_PER_MINUTE ?? DEFAULT_RATE_PER_MINUTE);
  }

  /** Takes one token: 0, or how long (ms) until one is back. */
  #take(now) {
    const rate = this.#ratePerMinute();
    this.#tokens = Math.min(rate, this.#tokens + ((now - this.#filledAt) * rate) / 60_000);
    this.#filledAt = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return ((1 - this.#tokens) * 60_000) / rate;
  }

  /** Forgets the runs that lapsed. */
  #prune(now) {
    for (const [runId, lapses] of this.#runs) {
      if (lapses <= now) this.#runs.delete(runId);
    }
    this.ctx.storage.sql.exec("DELETE FROM runs WHERE lapses <= ?", now);
  }

  /**
   * Admits one request of the caller on `runId` (`end`: POST /end, which frees the run's place):
   * null, or the 429 answer {code, message, retryAfterMs}. A refused request changes nothing.
   */
  admit(runId, end) {
    const now = Date.now();
    const wait = this.#take(now);
    if (wait > 0) return { code: "rate_limited", field: null, message: `more than ${this.#ratePerMinute()} requests a minute from this caller`, retryAfterMs: wait };
    if (end) {
      this.#runs.delete(runId);
      this.ctx.storage.sql.exec("DELETE FROM runs WHERE run_id = ?", runId);
      return null;
    }
    const lapses = now + retentionMs(this.env);
    if (!this.#runs.has(runId)) {
      const max = Number(this.env.MAX_LIVE_RUNS ?? DEFAULT_MAX_LIVE_RUNS);
      if (this.#runs.size >= max) this.#prune(now);
      if (this.#runs.size >= max) {
        let soonest = Infinity;
        for (const until of this.#runs.values()) soonest = Math.min(soonest, until);
        const message = `this caller has ${max} live runs: end one (POST /end) or wait until one lapses`;
        return { code: "too_many_runs", field: "runId", message, retryAfterMs: soonest - now };
      }
    }
    // Written when the run is new or its stored lapse is a minute old: one write a minute per run at most.
    if (!(this.#runs.get(runId) > lapses - 60_000)) {
      this.ctx.storage.sql.exec("INSERT OR REPLACE INTO runs (run_id, lapses) VALUES (?, ?)", runId, lapses);
      this.#runs.set(runId, lapses);
    }
    return null;
  }
}

const CALLER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** SHA-256 of a text: fixed-length bytes for a constant-time comparison. */
async function digest(text) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** The callers of a GUARD_TOKENS text ({caller: token}), or null unless it is one with at least one valid entry. */
function parseTokens(secret) {
  let tokens;
  try {
    tokens = JSON.parse(secret);
  } catch {
    return null;
  }
  if (typeof tokens !== "object" || tokens === null || Array.isArray(tokens)) return null;
  const entries = Object.entries(tokens);
  const valid = entries.every(([name, token]) => CALLER_NAME.test(name) && typeof token === "string" && token.length >= 16);
  return valid && entries.length > 0 ? entries : null;
}

let callersCache;
/** [[caller, digest of its token]] from the GUARD_TOKENS secret (parsed once per isolate), or null when it is missing or invalid. */
async function callers(env) {
  const secret = typeof env.GUARD_TOKENS === "string" ? env.GUARD_TOKENS : "";
  if (callersCache?.secret !== secret) {
    const entries = parseTokens(secret);
    callersCache = { secret, digests: entries && (await Promise.all(entries.map(async ([name, token]) => [name, await digest(token)]))) };
  }
  return callersCache.digests;
}

/** The caller whose token the request presents, compared with every token in constant time; null for none. */
async function authenticate(request, known) {
  const presented = await digest(/^Bearer (\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "");
  let caller = null;
  for (const [name, expected] of known) {
    if (crypto.subtle.timingSafeEqual(presented, expected) && caller === null) caller = name;
  }
  return caller;
}

/** The JSON answer for an object's reply: the verdict, or the guard's error (400; 500 for `internal`). */
function reply(answer) {
  if (answer.error !== undefined) return Response.json(answer.error, { status: answer.error.code === "internal" ? 500 : 400 });
  return Response.json(answer.verdict ?? answer);
}

/** A request refused before any Durable Object is addressed: {code, field, message} with `status`. */
class Refused extends Error {
  constructor(status, code, field, message) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

function badRequest(field, message) {
  return new Refused(400, "invalid_record", field, message);
}

/**
 * The body as text, kept only up to MAX_BODY_BYTES: the rest of a longer one is read and dropped
 * (a client still sending then reads the 413 rather than a broken connection; the platform's own
 * body limit bounds it), and 413 answers it.
 */
async function bodyText(request) {
  const chunks = [];
  let size = 0;
  if (request.body !== null) {
    for await (const chunk of request.body) {
      size += chunk.byteLength;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    }
  }
  if (size > MAX_BODY_BYTES) throw new Refused(413, "too_large", null, `the body is larger than ${MAX_BODY_BYTES} bytes`);
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const OPENERS = new Set([91, 123]); // [ {
const CLOSERS = new Set([93, 125]); // ] }

/** The index of the quote that closes the JSON string opening at `start`, or -1. */
function stringEnd(text, start) {
  for (let end = text.indexOf('"', start + 1); end !== -1; end = text.indexOf('"', end + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
  return -1;
}

/**
 * The top-level member of a JSON text in which objects and arrays nest deeper than `limit` (its
 * name, or "" when the top level itself is too deep), or undefined when none does. One pass over
 * the text counting brackets outside strings: no recursion, whatever the depth.
 */
function tooDeepMember(text, limit) {
  let depth = 0;
  let lastString = "";
  let member = "";
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) return undefined; // not JSON: JSON.parse says so
      if (depth === 1) lastString = text.slice(i + 1, end);
      i = end;
    } else if (c === COLON && depth === 1) member = lastString;
    else if (OPENERS.has(c)) {
      depth++;
      if (depth > limit) return member;
    } else if (CLOSERS.has(c)) depth--;
  }
  return undefined;
}

/** The request's record: parsed, within the bounds, with a run id (Refused otherwise). */
async function recordOf(request) {
  const text = await bodyText(request);
  const deep = tooDeepMember(text, MAX_BODY_DEPTH);
  if (deep !== undefined) {
    const where = deep === "" ? "the body" : deep;
    throw new Refused(400, "too_deep", deep === "" ? null : deep, `${where} is nested deeper than ${MAX_BODY_DEPTH} levels (objects and arrays, counting the body)`);
  }
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest(null, "the body is not JSON");
  }
  const runId = body?.runId;
  if (typeof runId !== "string" || runId === "") throw badRequest("runId", "runId must be a non-empty string: it names the run's Durable Object");
  if (runId.length > MAX_RUN_ID_LENGTH) throw badRequest("runId", `runId must be at most ${MAX_RUN_ID_LENGTH} characters`);
  return body;
}

/** The answer to a refused request; a 429 says when to come back (`Retry-After`, whole seconds). */
function refusal({ status, code, field, message, retryAfterMs }) {
  const headers = retryAfterMs === undefined ? {} : { "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
  return Response.json({ code, field, message }, { status, headers });
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    const method = { "/check": "check", "/record": "record", "/end": "end" }[pathname];
    if (request.method !== "POST" || method === undefined) {
      const home = request.method === "GET" && pathname === "/";
      return new Response("tool-loop-guard Worker: POST /check, /record or /end with a JSON body naming its runId\n", { status: home ? 200 : 404 });
    }
    const known = await callers(env);
    if (known === null) {
      const message = "the GUARD_TOKENS secret must be a JSON object {caller: token} (names of letters, digits, _ . -; tokens of 16 characters or more)";
      return Response.json({ code: "unconfigured", message }, { status: 500 });
    }
    const caller = await authenticate(request, known);
    if (caller === null) {
      return Response.json({ code: "unauthorized", message: "a valid Authorization: Bearer token is required" }, { status: 401, headers: { "www-authenticate": "Bearer" } });
    }
    let body;
    try {
      body = await recordOf(request);
    } catch (error) {
      if (error instanceof Refused) return refusal(error);
      throw error;
    }
    const { runId } = body;
    const ledger = env.CALLER_LEDGER.get(env.CALLER_LEDGER.idFromName(caller));
    const refused = await ledger.admit(runId, method === "end");
    if (refused !== null) return refusal({ status: 429, ...refused });
    // The caller's own namespace of runs (caller names cannot contain ":").
    const stub = env.RUN_GUARD.get(env.RUN_GUARD.idFromName(`${caller}:${runId}`));
    return reply(method === "end" ? await stub.end(runId) : await stub[method](body));
  },
};
