/**
 * node:crypto as the Node entries (ESM, CommonJS; Bun takes the ESM one) hand it to the runtime:
 * SHA-256, hex of a text for large result texts and digest bytes for the core's long inputs; and
 * the random bytes of the instance's window secret, read from the OS (`/dev/urandom`) where there
 * is one, else node:crypto's `randomFillSync` (Windows). Loading node:crypto, which Web Crypto's
 * `globalThis.crypto` also does, costs a fresh Node 24 process 6-11 ms; the read ~0.12 ms. The
 * one-shot `crypto.hash` (Node >= 20.12) where there is one: it skips the Hash object createHash
 * builds, which costs about a microsecond a call. Digest bytes are asked for as a `latin1` string
 * (one character per byte) and copied where they go: a Buffer result costs ~0.7 µs more a call.
 * Nothing is read at module load: node:crypto is taken with `process.getBuiltinModule` on first
 * use, because an ESM `import` of it builds a namespace of every export, loading all of the
 * module's lazily loaded parts (Web Crypto, key objects, …): ~10 ms of a fresh process's first
 * verdict, for a hasher that only long texts need.
 */
import type * as NodeCrypto from "node:crypto";

type OneShot = (algorithm: string, data: string | Uint8Array, encoding: "hex" | "latin1") => string;
let loaded: typeof NodeCrypto | undefined;
let found: OneShot | null | undefined;

/** node:crypto, taken on first use. */
function crypto(): typeof NodeCrypto {
  loaded ??= process.getBuiltinModule("node:crypto");
  return loaded;
}

/** `crypto.hash`, or null where the runtime has none (looked up once, on first use). */
function oneShot(): OneShot | null {
  found ??= (crypto() as { hash?: OneShot }).hash ?? null;
  return found;
}

export function randomFill(bytes: Uint8Array): void {
  const fs = process.getBuiltinModule("node:fs");
  let read = 0;
  try {
    const fd = fs.openSync("/dev/urandom", "r");
    try {
      while (read < bytes.length) {
        const got = fs.readSync(fd, bytes, read, bytes.length - read, null);
        if (got <= 0) break;
        read += got;
      }
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    read = 0;
  }
  if (read < bytes.length) crypto().randomFillSync(bytes);
}

export function sha256Hex(text: string): string {
  const hash = oneShot();
  return hash === null ? crypto().createHash("sha256").update(text).digest("hex") : hash("sha256", text, "hex");
}

export function sha256Bytes(bytes: Uint8Array, out: Uint8Array, at: number): void {
  const hash = oneShot();
  if (hash === null) {
    out.set(crypto().createHash("sha256").update(bytes).digest(), at);
    return;
  }
  const digest = hash("sha256", bytes, "latin1");
  for (let i = 0; i < 32; i++) out[at + i] = digest.charCodeAt(i);
}
