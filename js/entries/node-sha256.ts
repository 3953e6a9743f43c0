/**
 * node:crypto's SHA-256 as the Node entries (ESM, CommonJS; Bun takes the ESM one) hand it to the
 * runtime: hex of a text for large result texts, digest bytes for the core's long inputs. The
 * one-shot `crypto.hash` (Node >= 20.12) where there is one: it skips the Hash object createHash
 * builds, which costs about a microsecond a call. Nothing is read at module load.
 */
import * as crypto from "node:crypto";

type OneShot = (algorithm: string, data: string | Uint8Array, encoding: "hex" | "buffer") => string | Uint8Array;
let found: OneShot | null | undefined;

/** `crypto.hash`, or null where the runtime has none (looked up once, on first use). */
function oneShot(): OneShot | null {
  found ??= (crypto as { hash?: OneShot }).hash ?? null;
  return found;
}

export function sha256Hex(text: string): string {
  const hash = oneShot();
  return hash === null ? crypto.createHash("sha256").update(text).digest("hex") : (hash("sha256", text, "hex") as string);
}

export function sha256Bytes(bytes: Uint8Array): Uint8Array {
  const hash = oneShot();
  return hash === null ? crypto.createHash("sha256").update(bytes).digest() : (hash("sha256", bytes, "buffer") as Uint8Array);
}
