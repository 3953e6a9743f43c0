// A Cloudflare Worker that guards an agent's tool calls, one Durable Object per run.
//
//   POST /check   {runId, tool, args?, callId?, at?}                   -> Verdict (before dispatch)
//   POST /record  {runId, tool, args?, callId?, at?, result?, error?}  -> Verdict (after the tool ran)
//   POST /end     {runId}                                              -> {ended: true} (forgets the run)
//   a bad record: 400 {code, field, message} (LoopGuardError's code and field)
//
// The Worker itself keeps nothing: it routes each request to the Durable Object named by its runId
// (`RUN_GUARD.idFromName(runId)`), so every call of a conversation meets the same guard wherever
// the request lands. The object (class RunGuard, SQLite-backed) keeps a LoopGuard in memory, writes
// the run's snapshot (`exportRun`: fingerprints and counters, ~1.1-1.3 KB) to its storage after
// every record and every check that did not simply allow, and restores it (`importRun`) when it starts again after eviction, a
// deploy or a crash. A request is answered only once its write is durable (output gate), so an
// acknowledged verdict is never lost. A run left idle for RUN_RETENTION_MS (default 7 days) is
// deleted by the object's alarm.
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

/** One run's guard, reached over RPC. Its name is the runId; the Worker sends it only that run's calls. */
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
    let body;
    try {
      body = await request.json();
    } catch {
      return badRequest(null, "the body is not JSON");
    }
    const runId = body?.runId;
    if (typeof runId !== "string" || runId === "") return badRequest("runId", "runId must be a non-empty string: it names the run's Durable Object");
    const stub = env.RUN_GUARD.get(env.RUN_GUARD.idFromName(runId));
    return reply(method === "end" ? await stub.end(runId) : await stub[method](body));
  },
};
