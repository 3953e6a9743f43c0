// Non-retention, proven through the built package: records whose args, results, errors and
// details carry a unique marker (1 KB and 2 MB, ASCII and non-ASCII around it) are checked and
// recorded, including ones that fail mid-record (BigInt beside the marker, a cyclic object, a
// throwing toJSON or getter, an unknown key); then the module's whole WebAssembly.Memory, every
// snapshot, stats(), metrics() and the verdicts (less the quote a record's verdict may make of the
// result it answers) are searched for the marker's token as UTF-8,
// UTF-16LE and base64 (at each of the three alignments). Tool names and run ids are identifiers the guard keeps:
// run ids while their run is live (a snapshot restores them), tool names also in the per-tool call
// counters of metrics() (verdict texts name tools): both must be gone from memory once the run
// ended and the guard was freed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { LoopGuard, LoopGuardError } from "tool-loop-guard";
import { currentRuntime } from "../../../pkg/instance.js";

const KB = 1024;
const MB = 1024 * KB;

/** A token no other test writes: what is searched for. */
function newToken() {
  return `nrtk${randomBytes(10).toString("hex")}z`;
}

/** A text of about `size` UTF-16 units made of the token, repeated, between ASCII and non-ASCII text. */
function markerText(token, size) {
  const unit = `${token} out ünï ✓ 🙂 `;
  return unit.repeat(Math.max(1, Math.ceil(size / unit.length))).slice(0, Math.max(size, unit.length));
}

/** The byte patterns of the token's UTF-8, UTF-16LE and base64 forms. */
function forms(token) {
  const patterns = [
    ["utf-8", Buffer.from(token, "utf8")],
    ["utf-16le", Buffer.from(token, "utf16le")],
  ];
  for (let shift = 0; shift < 3; shift++) {
    // The base64 characters that depend on the token's bytes only, at this alignment.
    const encoded = Buffer.from("\0".repeat(shift) + token, "latin1").toString("base64");
    const first = Math.ceil((shift * 4) / 3);
    const last = Math.floor(((shift + token.length) * 4) / 3) - 1;
    const inner = encoded.slice(first + 1, last - 1);
    patterns.push([`base64+${shift}`, Buffer.from(inner, "latin1")]);
    patterns.push([`base64+${shift} utf-16le`, Buffer.from(inner, "utf16le")]);
  }
  return patterns;
}

/** Where each form of the token appears in `bytes`. */
function hits(bytes, token) {
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found = [];
  for (const [name, pattern] of forms(token)) {
    let at = haystack.indexOf(pattern);
    while (at >= 0 && found.length < 20) {
      found.push(`${name} at ${at}`);
      at = haystack.indexOf(pattern, at + 1);
    }
  }
  return found;
}

function wasmBytes() {
  const memory = currentRuntime()?.memory;
  assert.ok(memory, "the node entry writes into wasm memory");
  return new Uint8Array(memory.buffer);
}

function assertAbsent(token, where, bytes) {
  assert.deepEqual(hits(bytes, token), [], `the marker is in ${where}`);
}

function assertNoMarker(token, guard, runs) {
  assertAbsent(token, "wasm memory", wasmBytes());
  for (const run of runs) assertAbsent(token, `the snapshot of ${run ?? "the default run"}`, guard.exportRun(run));
  assertAbsent(token, "stats()", Buffer.from(JSON.stringify(guard.stats())));
  assertAbsent(token, "metrics()", Buffer.from(guard.metrics()));
}

/**
 * A verdict as searched for the marker. A record's verdict may quote the start of the result it
 * answers ("It returned: …", the core's `record::quote`): that quote is the host's own data handed
 * back at once, and is taken out; anything else of the marker in a verdict is a leak.
 */
function verdictText(verdict) {
  return JSON.stringify(verdict).replace(/ It returned: \\".*?\\"\./g, " It returned: (quote).");
}

/** Every way a marker enters through check/record, for one marker text. */
function feed(guard, marker, token, verdicts) {
  const run = "run-a";
  const seen = (verdict) => verdicts.push(verdictText(verdict));
  const throwsCoded = (fn) => assert.throws(fn, (error) => error instanceof LoopGuardError && typeof error.code === "string");
  for (let i = 0; i < 4; i++) {
    const args = { path: `/tmp/${marker}`, n: i % 2 };
    seen(guard.check({ runId: run, tool: "read_file", args, callId: `c${i}` }));
    seen(guard.record({ runId: run, tool: "read_file", args, callId: `c${i}`, result: `contents ${marker}` }));
  }
  // Short results, both ways in (a string, text parts with details), and errors.
  for (let i = 0; i < 3; i++) {
    seen(guard.check({ runId: run, tool: "exec", args: { cmd: `echo ${token}` } }));
    seen(guard.record({ runId: run, tool: "exec", args: { cmd: `echo ${token}` }, result: `small ${token}` }));
    seen(guard.record({ runId: run, tool: "exec", args: { cmd: "x" }, result: { content: [{ type: "text", text: `small ${token}` }], details: { note: marker }, isError: true } }));
    seen(guard.record({ runId: run, tool: "exec", args: { cmd: "y" }, error: new Error(`failed: ${marker}`) }));
    seen(guard.record({ runId: run, tool: "exec", args: { cmd: "z" }, error: `failed: ${token}` }));
    seen(guard.record({ runId: run, tool: "exec", args: { cmd: "w" }, result: { content: [{ type: "image", data: marker }, { type: "text", text: marker }] } }));
  }
  // BigInt beside the marker (the JSON way, through the replacer).
  seen(guard.check({ runId: run, tool: "exec", args: { big: 12345678901234567890n, cmd: marker } }));
  seen(guard.record({ runId: run, tool: "exec", args: { big: 1n, cmd: marker }, result: { content: [{ type: "text", text: marker }], details: { n: 2n, m: marker } } }));
  // Nesting close to the core's limit, and past it (too_deep), with the marker at the leaves.
  const nested = (depth) => {
    let value = { leaf: marker };
    for (let i = 0; i < depth; i++) value = i % 2 ? { [`k${i}`]: value, s: token } : [value, token];
    return value;
  };
  seen(guard.check({ runId: run, tool: "exec", args: nested(100) }));
  seen(guard.record({ runId: run, tool: "exec", args: { cmd: "n" }, result: { content: [{ type: "text", text: token }], details: nested(100) } }));
  throwsCoded(() => guard.check({ runId: run, tool: "exec", args: nested(400) }));
  // Records that fail: cyclic, throwing toJSON, throwing getter, unknown keys, a tool name over the
  // limit.
  const cyclic = { cmd: marker };
  cyclic.self = cyclic;
  throwsCoded(() => guard.check({ runId: run, tool: "exec", args: cyclic }));
  throwsCoded(() => guard.record({ runId: run, tool: "exec", args: { cmd: marker }, result: { toJSON() { throw new Error(marker); } } }));
  throwsCoded(() =>
    guard.record({
      runId: run,
      tool: "exec",
      args: { cmd: marker },
      result: { content: [{ type: "text", text: marker }], get details() { throw new Error(marker); } },
    }),
  );
  throwsCoded(() => guard.check({ runId: run, tool: "exec", args: { cmd: marker }, [`extra ${marker}`]: 1 }));
  throwsCoded(() => guard.check({ runId: run, tool: `exec ${marker}`, args: { cmd: marker } }));
  throwsCoded(() => guard.check({ runId: run, tool: "exec", args: { cmd: marker }, callId: 7 }));
  // The fingerprint helper keeps nothing either.
  guard.fingerprint({ runId: run, tool: "exec", args: { cmd: marker }, result: `small ${marker}` });
  return run;
}

for (const [label, size] of [["1 KB", KB], ["2 MB", 2 * MB]]) {
  test(`${label} markers in args, results, errors and details: nowhere in wasm memory, snapshots, stats or metrics`, () => {
    const token = newToken();
    const marker = markerText(token, size);
    const guard = new LoopGuard({ preset: "strict" });
    const verdicts = [];
    try {
      const run = feed(guard, marker, token, verdicts);
      // Defaults run too (no run id), after an error mid-record.
      guard.check({ tool: "exec", args: { cmd: marker } });
      guard.record({ tool: "exec", args: { cmd: marker }, result: `small ${token}` });
      assert.ok(verdicts.some((v) => !v.includes('"allow"')), "the strict preset reacted to the repeats");
      for (const verdict of verdicts) assertAbsent(token, "a verdict", Buffer.from(verdict));
      assertNoMarker(token, guard, [run, undefined]);
      // The guard still works on the same run afterwards.
      const after = guard.check({ runId: run, tool: "read_file", args: { path: "/etc/hosts" } });
      assert.equal(typeof after.action, "string");
    } finally {
      guard.free();
    }
    assertAbsent(token, "wasm memory after free()", wasmBytes());
  });
}

test("run ids are kept while their run is live; tool names until free() (per-tool metrics)", () => {
  const runToken = newToken();
  const toolToken = newToken();
  const guard = new LoopGuard({ preset: "strict" });
  const run = `run ${runToken}`;
  const tool = `tool_${toolToken}`;
  const long = `tool_${markerText(toolToken, 300)}`;
  for (let i = 0; i < 3; i++) {
    for (const name of [tool, long]) {
      guard.check({ runId: run, tool: name, args: { i } });
      guard.record({ runId: run, tool: name, args: { i }, result: "same" });
    }
  }
  const snapshot = guard.exportRun(run);
  assert.notDeepEqual(hits(snapshot, runToken), [], "a live run's snapshot restores its id");
  assert.notDeepEqual(hits(snapshot, toolToken), [], "a live run's snapshot restores its tool names");
  assert.ok(guard.metrics().includes(toolToken), "the per-tool call counters name the tool");
  guard.endRun(run);
  assertAbsent(runToken, "wasm memory after endRun", wasmBytes());
  // Importing a snapshot brings the run back; ending it clears its id again.
  guard.importRun(snapshot);
  guard.check({ runId: run, tool, args: { i: 9 } });
  guard.endRun(run);
  assertAbsent(runToken, "wasm memory after the imported run ended", wasmBytes());
  guard.free();
  assertAbsent(toolToken, "wasm memory after free()", wasmBytes());
});

test("a guard freed with live runs leaves no tool name or run id behind", () => {
  const token = newToken();
  const guard = new LoopGuard();
  guard.check({ runId: `r-${token}`, tool: `t_${token}`, args: { x: 1 } });
  guard.record({ runId: `r-${token}`, tool: `t_${token}`, args: { x: 1 }, result: "ok" });
  guard.free();
  assertAbsent(token, "wasm memory after free()", wasmBytes());
});
