// Bad input and non-retention, portable: run by tests/js/runtimes/hostile-cli.mjs inside Deno and
// Bun (and in Node as the reference) through the package the runtime resolves. Each case yields a
// short outcome string (an error code and field, a fingerprint, a verdict list) that must be the
// same in every runtime; the non-retention scan yields the places a marker was found (none).
// The Node suite has the fuller versions: tests/js/node/hostile-values.test.mjs and
// non-retention.test.mjs.

const STRICT = { preset: "strict" };
/** The stuck call both the portable cases and the Node suite replay. */
export const CALL = { runId: "r", tool: "read_file", args: { path: "a.txt" } };
export const OUTCOME = { ...CALL, result: "same contents" };

/** As tests/js/scenario-runner.mjs writes a verdict (`allow` for a plain allow). */
function verdictString(v) {
  const text = `${v.action}/${v.level}/${v.detector ?? "-"}/${v.count}`;
  return text === "allow/ok/-/0" ? "allow" : text;
}

/** `code:field` of the LoopGuardError `fn` throws, or what it returned. */
function outcomeOf(api, fn) {
  try {
    const value = fn();
    return `ok ${typeof value === "string" ? value : JSON.stringify(value)}`;
  } catch (error) {
    return error instanceof api.LoopGuardError ? `${error.code}:${error.field ?? "-"}` : `foreign ${error}`;
  }
}

/** Verdict strings of `n` check+record steps of the stuck call (a refused call is not recorded). */
export function stuckSteps(guard, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const checked = guard.check(CALL);
    out.push(verdictString(checked));
    if (checked.action === "allow" || checked.action === "warn") out.push(verdictString(guard.record(OUTCOME)));
  }
  return out;
}

const steps = (guard, n) => stuckSteps(guard, n).join(",");

function throwing() {
  throw new Error("boom");
}

/** [name, outcome] of every case. */
export function hostileCases(api) {
  const { LoopGuard } = api;
  const fp = (args) => new LoopGuard().fingerprint({ tool: "t", args }).args;
  const cyclic = { a: 1 };
  cyclic.self = cyclic;
  const records = [
    ["cyclic args", "check", () => ({ ...CALL, args: cyclic })],
    ["throwing toJSON", "check", () => ({ ...CALL, args: { toJSON: throwing } })],
    ["throwing getter", "check", () => ({ tool: "t", get args() { return throwing(); } })],
    ["Proxy with a throwing trap", "check", () => new Proxy({ ...CALL }, { ownKeys: throwing })],
    ["__proto__ record key", "check", () => JSON.parse('{"tool":"t","__proto__":{}}')],
    ["1 MB tool name", "check", () => ({ tool: "t".repeat(1 << 20) })],
    ["10,000-deep args", "check", () => {
      let args = {};
      for (let i = 0; i < 10_000; i++) args = { a: args };
      return { ...CALL, args };
    }],
    ["5 MB string result", "record", () => ({ ...CALL, result: "y".repeat(5 << 20) })],
  ];
  const cases = [];
  for (const [name, op, record] of records) {
    const guard = new LoopGuard(STRICT);
    const results = [];
    for (let i = 0; i < 3; i++) {
      results.push(outcomeOf(api, () => verdictString(guard[op](record()))));
      guard.check({ runId: "r", tool: "read_file", args: { path: "a.txt" } });
      guard.record(OUTCOME);
    }
    cases.push([name, `${results[0]}; after: ${steps(guard, 1)}`]);
  }
  cases.push(["values without a JSON form", [fp({ x: NaN }) === fp({ x: null }), fp({ x: -0 }) === fp({ x: 0 }), fp({ x: new Map([[1, 2]]) }) === fp({ x: {} }), fp({ x: 1n }) === fp({ x: "1" })].join()]);
  const wrongTypes = { historySize: "30", preset: 3, tools: "all", enabled: "yes", detectors: [] };
  cases.push(["wrong config types", Object.entries(wrongTypes).map(([field, value]) => outcomeOf(api, () => new LoopGuard({ [field]: value }))).join()]);
  const source = new LoopGuard(STRICT);
  steps(source, 2);
  const snapshot = source.exportRun("r");
  const target = new LoopGuard(STRICT);
  const refused = [];
  for (let i = 0; i < snapshot.length; i += 7) {
    const flipped = snapshot.slice();
    flipped[i] ^= 0x10;
    refused.push(outcomeOf(api, () => target.importRun(flipped)), outcomeOf(api, () => target.importRun(snapshot.subarray(0, i))));
  }
  cases.push(["corrupt snapshots", [...new Set(refused)].join()]);
  cases.push(["intact snapshot", `${outcomeOf(api, () => target.importRun(snapshot))} then ${steps(target, 2)}`]);
  let depth = 0;
  const reentrant = new LoopGuard({
    ...STRICT,
    onVerdict() {
      depth += 1;
      if (depth < 3) reentrant.check({ runId: "other", tool: "list_dir" });
      depth -= 1;
      throwing();
    },
  });
  const calls = [];
  for (let i = 0; i < 4; i++) calls.push(outcomeOf(api, () => verdictString(reentrant.check(CALL))), outcomeOf(api, () => verdictString(reentrant.record(OUTCOME))));
  cases.push(["onVerdict re-enters and throws", calls.join()]);
  const freeing = new LoopGuard({ ...STRICT, onVerdict: () => freeing.free() });
  cases.push(["onVerdict frees", Array.from({ length: 4 }, () => outcomeOf(api, () => steps(freeing, 1))).join()]);
  return cases;
}

/** A token no other run writes, and its UTF-8, UTF-16LE and base64 byte patterns. */
function markerForms() {
  const bytes = new Uint8Array(10);
  crypto.getRandomValues(bytes);
  const token = `nrtk${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}z`;
  const ascii = (text) => Uint8Array.from(text, (c) => c.charCodeAt(0));
  const utf16 = (text) => Uint8Array.from([...text].flatMap((c) => [c.charCodeAt(0), 0]));
  const forms = [ascii(token), utf16(token)];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = btoa("\0".repeat(shift) + token);
    const first = Math.ceil((shift * 4) / 3);
    const last = Math.floor(((shift + token.length) * 4) / 3) - 1;
    forms.push(ascii(encoded.slice(first + 1, last - 1)));
  }
  return { token, forms };
}

function indexOf(haystack, needle) {
  const first = needle[0];
  outer: for (let i = haystack.indexOf(first); i >= 0 && i <= haystack.length - needle.length; i = haystack.indexOf(first, i + 1)) {
    for (let j = 1; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * Feeds markers through args, results, errors and failing records, then searches `memory()` (the
 * instance's WebAssembly.Memory), snapshots and stats: where each form was found (empty: nowhere).
 */
export function nonRetentionScan(api, memory) {
  const { LoopGuard } = api;
  const { token, forms } = markerForms();
  const guard = new LoopGuard(STRICT);
  for (const size of [1024, 2 << 20]) {
    const marker = `${token} ünï ✓ 🙂 `.repeat(Math.ceil(size / 40));
    for (let i = 0; i < 3; i++) {
      guard.check({ ...CALL, args: { q: marker } });
      guard.record({ ...CALL, args: { q: marker }, result: `small ${token}` });
      guard.record({ ...CALL, args: { q: "x" }, result: { content: [{ type: "text", text: marker }], details: { m: marker } } });
      guard.record({ ...CALL, args: { q: "y" }, error: new Error(marker) });
      guard.check({ ...CALL, args: { big: 10n, q: marker } });
    }
    const cyclic = { q: marker };
    cyclic.self = cyclic;
    outcomeOf(api, () => guard.check({ ...CALL, args: cyclic }));
    outcomeOf(api, () => guard.record({ ...CALL, result: { toJSON: () => throwing(marker) } }));
    outcomeOf(api, () => guard.check({ ...CALL, [marker]: 1 }));
  }
  const found = [];
  const places = [["memory", () => new Uint8Array(memory().buffer)], ["snapshot", () => guard.exportRun("r")], ["stats", () => new TextEncoder().encode(JSON.stringify(guard.stats()))], ["metrics", () => new TextEncoder().encode(guard.metrics())]];
  for (const [place, bytes] of places) {
    const haystack = bytes();
    forms.forEach((form, i) => {
      const at = indexOf(haystack, form);
      if (at >= 0) found.push(`${place}: form ${i} at ${at}`);
    });
  }
  guard.free();
  return found;
}
