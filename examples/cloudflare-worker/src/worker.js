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
// The Worker itself keeps nothing: it routes each request to the Durable Object named by its
// caller and runId (`RUN_GUARD.idFromName("<caller>:<runId>")`), so every call of a conversation
// meets the same guard wherever the request lands. The object (class RunGuard, SQLite-backed)
// keeps a LoopGuard in memory, writes the run's snapshot (`exportRun`: fingerprints and counters,
// ~1.1-1.3 KB) to its storage after every record and every check that did not simply allow, and
// restores it (`importRun`) when it starts again after eviction, a deploy or a crash. A request
// is answered only once its write is durable (output gate), so an acknowledged verdict is never
// lost. A run left idle for RUN_RETENTION_MS (default 7 days) is deleted by the object's alarm.
//
// Config: the GUARD_CONFIG var (a LoopGuardConfig object, e.g. {"preset": "strict"}).
import { DurableObject } from "cloudflare:workers";
import { LoopGuard, LoopGuardError } from "tool-loop-guard";

const SNAPSHOT_KEY = "snapshot";
const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

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
    this.ctx.storage.setAlarm(Date.now() + Number(this.env.RUN_RETENTION_MS ?? DEFAULT_RETENTION_MS));
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

function badRequest(field, message) {
  return Response.json({ code: "invalid_record", field, message }, { status: 400 });
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
      body = await request.json();
    } catch {
      return badRequest(null, "the body is not JSON");
    }
    const runId = body?.runId;
    if (typeof runId !== "string" || runId === "") return badRequest("runId", "runId must be a non-empty string: it names the run's Durable Object");
    // The caller's own namespace of runs (caller names cannot contain ":").
    const stub = env.RUN_GUARD.get(env.RUN_GUARD.idFromName(`${caller}:${runId}`));
    return reply(method === "end" ? await stub.end(runId) : await stub[method](body));
  },
};
