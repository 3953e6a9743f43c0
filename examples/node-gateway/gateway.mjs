// A guard gateway on node:http whose runs live in Redis (run-store.mjs), so several processes can
// serve one agent run and any of them can restart. The agent loop asks it before and after every
// tool call, with the same API as examples/cloudflare-worker:
//
//   POST /check   {runId, tool, args?, callId?, at?}                   -> Verdict (before dispatch)
//   POST /record  {runId, tool, args?, callId?, at?, result?, error?}  -> Verdict (after the tool ran)
//   POST /end     {runId}                                              -> {ended: true} (forgets the run)
//   GET  /healthz                                                      -> {redis: "PONG", conflicts} (503 without Redis)
// A bad record gets 400 {code, field, message} (LoopGuardError's code and field); while Redis is
// unreachable every request gets 503 {code: "store_unavailable"} at once, and changes nothing; a
// run that kept changing under a request for 50 attempts in a row (more than 50 concurrent
// requests on one run id) gets 503 {code: "conflict"}, and that request changed nothing.
//
// Bounds: a body of at most 16 MiB (else 413 `too_large`), a run id of at most 256 characters
// (else 400 `invalid_record`, field `runId`); per caller, at most RATE_PER_MINUTE requests a minute
// (rate-limit.mjs: a token bucket in Redis shared by every gateway process) and at most
// MAX_LIVE_RUNS live runs (a run is live until POST /end or until its key expires, RUN_TTL_MS after
// its last write); beyond either, 429 `rate_limited` / `too_many_runs` with Retry-After (seconds),
// and nothing is touched.
//
// Access: every POST carries `Authorization: Bearer <token>`, one of the tokens of GUARD_TOKENS
// (a JSON object {caller: token} in the environment; caller names of letters, digits, `_`, `.`
// and `-`, tokens of 16 characters or more; the gateway does not start without it). The presented
// token is compared with every configured one in constant time (SHA-256 digests,
// crypto.timingSafeEqual). Without a valid token: 401 and Redis is not touched. Run ids are
// scoped by the caller (the keys are `tlg:run:<caller>:<runId>`), so no caller can read, poison or
// end another's runs.
//
// Run it: GUARD_TOKENS='{"agent-1":"<a long random token>"}' REDIS_URL=redis://127.0.0.1:6379 \
//         PORT=8787 GUARD_CONFIG='{"preset":"strict"}' node gateway.mjs
// (also RUN_TTL_MS, MAX_LIVE_RUNS, RATE_PER_MINUTE; see README.md)
// It prints `listening on http://HOST:PORT` when ready (PORT=0 picks a free port). Redis should
// run with AOF on (`appendonly yes`; `appendfsync always` so that no acknowledged verdict is lost
// even if the Redis machine crashes).
import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { createClient } from "redis";
import { LoopGuard, LoopGuardError } from "tool-loop-guard";
import { takeToken } from "./rate-limit.mjs";
import { RedisRunStore, RunConflictError, RunQuotaError } from "./run-store.mjs";

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_RUN_ID_LENGTH = 256;
const DEFAULT_MAX_LIVE_RUNS = 10_000;
const DEFAULT_RATE_PER_MINUTE = 6000;

class HttpError extends Error {
  constructor(status, code, message, field = null, retryAfterMs = undefined) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * The request body as parsed JSON (HttpError 400 / 413 otherwise). Only MAX_BODY_BYTES are kept;
 * the rest of a longer body is read and dropped, so that a client still sending reads the 413
 * rather than a broken connection.
 */
async function readJson(request) {
  const chunks = [];
  let size = 0;
  for await (const chunk of request) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw new HttpError(413, "too_large", `the body is larger than ${MAX_BODY_BYTES} bytes`);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "invalid_record", "the body is not JSON");
  }
}

/** The runId of a body: a non-empty string of at most MAX_RUN_ID_LENGTH characters (it names the run's state in Redis). */
function runIdOf(body) {
  const runId = body?.runId;
  if (typeof runId !== "string" || runId === "") throw new HttpError(400, "invalid_record", "runId must be a non-empty string", "runId");
  if (runId.length > MAX_RUN_ID_LENGTH) throw new HttpError(400, "invalid_record", `runId must be at most ${MAX_RUN_ID_LENGTH} characters`, "runId");
  return runId;
}

const CALLER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const sha256 = (text) => createHash("sha256").update(text).digest();

/**
 * The callers of a GUARD_TOKENS object ({caller: token}) as [[caller, digest of its token]];
 * throws when it is not one with at least one entry, every name and token valid.
 */
export function parseCallers(tokens) {
  const entries = typeof tokens === "object" && tokens !== null && !Array.isArray(tokens) ? Object.entries(tokens) : [];
  const valid = entries.length > 0 && entries.every(([name, token]) => CALLER_NAME.test(name) && typeof token === "string" && token.length >= 16);
  if (!valid) throw new Error("GUARD_TOKENS must be a JSON object {caller: token}: names of letters, digits, _ . -; tokens of 16 characters or more");
  return entries.map(([name, token]) => [name, sha256(token)]);
}

/** The caller whose token the request presents, compared with every token in constant time; null for none. */
function authenticate(request, callers) {
  const presented = sha256(/^Bearer (\S+)$/i.exec(request.headers.authorization ?? "")?.[1] ?? "");
  let caller = null;
  for (const [name, expected] of callers) {
    if (timingSafeEqual(presented, expected) && caller === null) caller = name;
  }
  return caller;
}

/** The Retry-After header of a wait (ms): whole seconds, at least 1. */
const retryAfter = (ms) => ({ "retry-after": String(Math.max(1, Math.ceil(ms / 1000))) });

/** The status, JSON body and headers answering a failed request. */
function failure(error) {
  if (error instanceof HttpError) {
    const headers = error.retryAfterMs === undefined ? {} : retryAfter(error.retryAfterMs);
    return [error.status, { code: error.code, field: error.field, message: error.message }, headers];
  }
  if (error instanceof RunQuotaError) return [429, { code: "too_many_runs", field: "runId", message: error.message }, retryAfter(error.retryAfterMs)];
  if (error instanceof LoopGuardError) return [error.code === "internal" ? 500 : 400, { code: error.code, field: error.field, message: error.message }];
  if (error instanceof RunConflictError) return [503, { code: "conflict", message: error.message }];
  return [503, { code: "store_unavailable", message: `Redis: ${error?.message ?? error}` }];
}

/**
 * The gateway's request handler over a connected node-redis client. `tokens`: the callers let in
 * ({caller: token}, see GUARD_TOKENS); `config`: the LoopGuardConfig of every run; `store`:
 * RedisRunStore options ({ttlMs, maxAttempts}; the key prefix is per caller); `limits`: per
 * caller, {maxLiveRuns, ratePerMinute} (defaults 10,000 and 6,000).
 */
export function createGateway({ redis, tokens, config, store: storeOptions, limits = {} } = {}) {
  const callers = parseCallers(tokens);
  const guard = new LoopGuard(config);
  const { maxLiveRuns = DEFAULT_MAX_LIVE_RUNS, ratePerMinute = DEFAULT_RATE_PER_MINUTE } = limits;
  // One store per caller, each with its own key prefix: a caller's run ids name only its own runs.
  const stores = new Map(
    callers.map(([name]) => [name, new RedisRunStore(redis, { ...storeOptions, prefix: `tlg:run:${name}:`, runsKey: `tlg:runs:${name}`, maxRuns: maxLiveRuns })]),
  );
  const conflicts = () => [...stores.values()].reduce((sum, store) => sum + store.conflicts, 0);
  const routes = {
    "POST /check": async (store, body) => store.update(guard, runIdOf(body), () => guard.check(body)),
    "POST /record": async (store, body) => store.update(guard, runIdOf(body), () => guard.record(body)),
    "POST /end": async (store, body) => {
      await store.delete(runIdOf(body));
      return { ended: true };
    },
  };
  return async function handle(request, response) {
    const send = (status, body, headers = {}) => {
      response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      response.end(JSON.stringify(body));
    };
    const { pathname } = new URL(request.url, "http://gateway");
    try {
      if (request.method === "GET" && pathname === "/healthz") return send(200, { redis: await redis.ping(), conflicts: conflicts() });
      const route = routes[`${request.method} ${pathname}`];
      if (route === undefined) return send(404, { code: "not_found", message: "POST /check, /record or /end; GET /healthz" });
      const caller = authenticate(request, callers);
      if (caller === null) {
        request.resume();
        return send(401, { code: "unauthorized", message: "a valid Authorization: Bearer token is required" }, { "www-authenticate": "Bearer" });
      }
      const wait = await takeToken(redis, `tlg:rate:${caller}`, ratePerMinute);
      if (wait > 0) {
        request.resume();
        throw new HttpError(429, "rate_limited", `more than ${ratePerMinute} requests a minute from this caller`, null, wait);
      }
      return send(200, await route(stores.get(caller), await readJson(request)));
    } catch (error) {
      return send(...failure(error));
    }
  };
}

/** A positive integer from the environment variable `name`, or undefined when it is not set. */
function envCount(name) {
  const text = process.env[name];
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(text)}`);
  return value;
}

/** Starts a gateway from the environment (GUARD_TOKENS, REDIS_URL, PORT, HOST, GUARD_CONFIG, RUN_TTL_MS, MAX_LIVE_RUNS, RATE_PER_MINUTE). */
async function main() {
  let tokens = null;
  try {
    tokens = JSON.parse(process.env.GUARD_TOKENS ?? "null");
  } catch {
    // parseCallers names what is wanted
  }
  parseCallers(tokens); // refuse to start without valid tokens
  const redis = createClient({
    url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    // While Redis is unreachable, answer 503 at once instead of queueing requests.
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 1000) },
  });
  redis.on("error", (error) => console.error(`redis: ${error.message}`));
  await redis.connect();
  const config = process.env.GUARD_CONFIG ? JSON.parse(process.env.GUARD_CONFIG) : undefined;
  const ttlMs = process.env.RUN_TTL_MS ? Number(process.env.RUN_TTL_MS) : undefined;
  const limits = { maxLiveRuns: envCount("MAX_LIVE_RUNS"), ratePerMinute: envCount("RATE_PER_MINUTE") };
  const server = http.createServer(createGateway({ redis, tokens, config, store: { ttlMs }, limits }));
  server.listen(Number(process.env.PORT ?? 8787), process.env.HOST ?? "127.0.0.1", () => {
    const { address, port } = server.address();
    console.log(`listening on http://${address}:${port}`);
  });
  const shutdown = () => server.close(() => redis.close().finally(() => process.exit(0)));
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
