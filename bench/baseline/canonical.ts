/**
 * Baseline guard: sorted-key stable JSON and SHA-256 (node:crypto), the two primitives every
 * fingerprint of the plain-TypeScript baseline is built from.
 */
import { createHash } from "node:crypto";

/** Keys dropped at any depth from results and errors before hashing (docs/semantics.md). */
export const VOLATILE_KEYS: ReadonlySet<string> = new Set([
  "durationMs", "duration", "elapsedMs", "tookMs", "pid", "startedAt", "endedAt", "createdAt",
  "updatedAt", "sentAt", "deliveredAt", "timestamp", "ts", "requestId", "traceId", "spanId",
  "messageId", "message_id", "receipt", "idempotencyKey", "runId", "sessionId", "cwd",
]);

/**
 * JSON text with object keys sorted by UTF-16 code units at every depth; keys in `drop` are left
 * out. Values JSON.stringify would drop (undefined, functions, symbols) are dropped the same way.
 */
export function stableStringify(value: unknown, drop?: ReadonlySet<string>): string {
  if (typeof value === "object" && value !== null && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON(): unknown }).toJSON();
  }
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return "[" + value.map((item) => stableStringify(item, drop)).join(",") + "]";
  const object = value as Record<string, unknown>;
  let body = "";
  for (const key of Object.keys(object).sort()) {
    const item = object[key];
    if (drop?.has(key) || item === undefined || typeof item === "function" || typeof item === "symbol") continue;
    body += (body === "" ? "" : ",") + JSON.stringify(key) + ":" + stableStringify(item, drop);
  }
  return "{" + body + "}";
}

/** SHA-256 of a string's UTF-8 bytes (or of raw bytes), as hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
