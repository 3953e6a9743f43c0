// SHA-256 reference timings for rows (e) and (f) of the bench: node:crypto over the bytes (the
// host's native floor) and the package's in-wasm SHA-256 (when its bindings export one).
import { createHash } from "node:crypto";
import { medianNs } from "./timing.mjs";

/** Median ns of node:crypto SHA-256 over `bytes`. */
export function nativeSha256Ns(bytes, reps) {
  return medianNs(() => createHash("sha256").update(bytes).digest(), reps);
}

/** Median ns of the package's in-wasm SHA-256 over `bytes`, or undefined without one. */
export function wasmSha256Ns(sha256, bytes, reps) {
  return sha256 === undefined ? undefined : medianNs(() => sha256(bytes), reps);
}
