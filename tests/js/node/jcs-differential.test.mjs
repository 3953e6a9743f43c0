// The core's argument fingerprint (the first 64 bits of SHA-256 over RFC 8785 canonical JSON)
// against an RFC 8785 canonicaliser written here from the ECMAScript side: numbers as String(x),
// strings as JSON.stringify writes them, keys sorted by UTF-16 code units (Array#sort's order).
// This runs the engine's own number printing and sorting against the core's float parser, number
// formatter and canonical writer, end to end through JSON.stringify and the wasm boundary. A fixed
// sample runs in npm test; DIFFERENTIAL_CASES=N runs N records per check.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { init, LoopGuard } from "tool-loop-guard";

await init();
const cases = (fixed) => Number(process.env.DIFFERENTIAL_CASES ?? fixed);

/** RFC 8785 canonical JSON of a JSON value whose strings hold no lone surrogate. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  }
  return typeof value === "number" ? String(value === 0 ? 0 : value) : JSON.stringify(value);
}

const argsFingerprint = (args) => createHash("sha256").update(canonical(args)).digest("hex").slice(0, 16);

/** xorshift32, so a failing case reproduces. */
function rng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return { next, below: (n) => Math.floor(next() * n) };
}

/** A finite double from random bits, a short decimal or a power of ten at the edge of a form. */
function double(r) {
  const view = new DataView(new ArrayBuffer(8));
  for (;;) {
    switch (r.below(4)) {
      case 0:
        return Math.round(r.next() * 1e6) / 10 ** r.below(8);
      case 1:
        return (r.next() < 0.5 ? -1 : 1) * 10 ** (r.below(60) - 30) * (1 + r.below(9));
      default: {
        view.setUint32(0, r.next() * 2 ** 32);
        view.setUint32(4, r.next() * 2 ** 32);
        const x = view.getFloat64(0);
        if (Number.isFinite(x)) return x;
      }
    }
  }
}

const KEY_CHARS = ["a", "b", "A", "é", "€", "\uE000", "\uFFFD", "\u{1F600}", "\u{10FFFF}", "\u0000", "\n", '"', "\\", "/", "\u007F", "1"];

function key(r) {
  let text = "";
  for (let i = r.below(4); i >= 0; i--) text += KEY_CHARS[r.below(KEY_CHARS.length)];
  return text;
}

function value(r, depth) {
  switch (r.below(depth > 0 ? 7 : 5)) {
    case 0:
      return [null, true, false][r.below(3)];
    case 1:
    case 2:
      return double(r);
    case 3:
    case 4:
      return key(r) + key(r);
    case 5:
      return Array.from({ length: r.below(4) }, () => value(r, depth - 1));
    default:
      return Object.fromEntries(Array.from({ length: r.below(5) }, () => [key(r), value(r, depth - 1)]));
  }
}

test("numbers: the core formats every double as String(x) does", () => {
  const guard = new LoopGuard();
  const r = rng(0x2545f491);
  const n = cases(20_000);
  for (let i = 0; i < n; i++) {
    const args = { x: double(r) };
    assert.equal(guard.fingerprint({ tool: "t", args }).args, argsFingerprint(args), `x = ${args.x}`);
  }
  guard.free();
});

test("documents: keys, strings and nesting canonicalise as an ECMAScript RFC 8785 writer does", () => {
  const guard = new LoopGuard();
  const r = rng(0x9e3779b9);
  const n = cases(5_000);
  for (let i = 0; i < n; i++) {
    const args = { doc: value(r, 4) };
    assert.equal(guard.fingerprint({ tool: "t", args }).args, argsFingerprint(args), JSON.stringify(args));
  }
  guard.free();
});
