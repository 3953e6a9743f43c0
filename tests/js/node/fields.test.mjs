// Ordinary records cross into wasm field by field (js/frame.ts); everything else, and whatever the
// core declines, as one JSON record. Both forms must mean the same: for tricky records the verdicts
// and the run snapshots (which hold every fingerprint) of a guard that takes the field form are
// compared with those of a guard whose core declines every fields frame.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { init } from "tool-loop-guard";
import { InputFrame } from "../../../pkg/frame.js";
import { LoopGuardCore } from "../../../pkg/guard.js";
import { WasmRuntime } from "../../../pkg/runtime.js";
import * as glue from "../../../pkg/tool_loop_guard.js";

await init(); // instantiates the glue shared with the package's Node entry
const long = "z".repeat(glue.maxScannedTextBytes() + 10);
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/** A runtime whose guards count the frames of each form they are handed. */
function countingRuntime(counts) {
  class CountingGuard extends glue.WasmGuard {}
  for (const method of ["check", "record"]) {
    CountingGuard.prototype[method] = function (form, nowMs) {
      counts[form === glue.Form.Fields ? "fields" : "json"]++;
      return glue.WasmGuard.prototype[method].call(this, form, nowMs);
    };
  }
  return new WasmRuntime({ ...glue, WasmGuard: CountingGuard }, sha256);
}

/**
 * A guard whose core answers every fields frame with `Status.SendJson` unread, so that every
 * record takes the JSON form (what the fields frame left in the buffer is overwritten or unread).
 */
function jsonOnlyRuntime() {
  class JsonOnlyGuard extends glue.WasmGuard {}
  for (const method of ["check", "record"]) {
    JsonOnlyGuard.prototype[method] = function (form, nowMs) {
      if (form === glue.Form.Fields) return glue.Status.SendJson;
      return glue.WasmGuard.prototype[method].call(this, form, nowMs);
    };
  }
  return new WasmRuntime({ ...glue, WasmGuard: JsonOnlyGuard }, sha256);
}

// Thresholds pinned so that no call of the rounds below is refused (a refused call's outcome
// would take the JSON way) whatever the default preset is.
const PINNED = { warningThreshold: 10, criticalThreshold: 20, globalCircuitBreakerThreshold: 30 };
const jsonOnly = () => new LoopGuardCore(jsonOnlyRuntime(), PINNED);

/** [call, outcome] pairs; each is checked and recorded three times in a row. */
const steps = [
  [{ tool: "read_file", args: { path: "a", n: 1.0, big: 1e21 } }, { result: "line one\nline \"two\" é 😀" }],
  [{ tool: "search", args: { q: "x" }, callId: "c1" }, { result: { content: [{ type: "text", text: "Unknown tool: search" }], isError: true } }],
  [{ tool: "fetch", args: { url: "u" } }, { result: { content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], details: { status: 200, durationMs: 5, nested: { requestId: "r", keep: [1, 2] } } } }],
  [{ tool: "read_file", args: { path: "big" }, callId: "c2" }, { result: long }],
  [{ tool: "read_file", args: { path: "big2" } }, { result: { content: [{ type: "text", text: long }, { type: "text", text: "tail" }] } }],
  [{ tool: "exec", args: { command: "make" } }, { result: { content: [{ type: "text", text: "ok" }], details: { status: "completed", exitCode: 0, durationMs: 9 } } }],
  [{ tool: "write", args: { path: "f" } }, { result: { content: [{ type: "text", text: "same" }], details: { changed: false } } }],
  [{ tool: "t", args: { n: 10n }, at: Number.NaN }, { result: { content: [], details: () => 1, isError: false } }],
  [{ tool: "t", args: undefined, at: null, runId: null }, { result: null }],
  [{ tool: "u", args: { x: [new Date(0)] } }, { result: { content: [{ type: "image", data: "x" }] } }],
  [{ tool: "v", args: {} }, { result: { content: [{ type: "text", text: "x", annotations: {} }], structuredContent: { a: 1 } } }],
  [{ tool: "w", args: { a: 1 } }, { error: new Error("boom") }],
  [{ tool: "x", args: {} }, { error: "Unknown tool: x" }],
  [{ tool: "y", args: { a: 2 } }, { error: Object.assign(new Error("HTTP 503 Service Unavailable"), { status: 503 }) }],
  [{ tool: "z", args: {} }, { error: long }],
  [{ tool: "w2", args: {} }, { error: new TypeError("") }],
  [{ tool: "s", args: {} }, { error: "" }],
  [{ tool: "c", args: {}, callId: "c3" }, { error: "<tool_use_error>Sibling tool call errored</tool_use_error>" }],
  [{ tool: "o", args: {} }, { error: { message: "m" } }],
  // String arguments, and empty objects (written `{}` without stringifying) or objects that only
  // look empty.
  [{ tool: "sa", args: "{'order_id': '#W2378156'}" }, { result: "found" }],
  [{ tool: "sa", args: 'say "hi" \\ to\nthe 😀 é \u2028' }, { result: "said" }],
  [{ tool: "sa", args: "" }, { result: "empty" }],
  [{ tool: "sa", args: "x".repeat(200) }, { result: "long" }],
  [{ tool: "sa", args: "lone \uDC00" }, { result: "escaped" }],
  [{ tool: "eo", args: Object.create(null) }, { result: "null prototype" }],
  [{ tool: "eo", args: { toJSON: () => ({ n: 1 }) } }, { result: "toJSON" }],
];

test("the field way and the JSON way give identical verdicts and fingerprints", () => {
  const counts = { fields: 0, json: 0 };
  const fieldWay = new LoopGuardCore(countingRuntime(counts), PINNED);
  const jsonWay = jsonOnly();
  let at = 1000;
  for (let round = 0; round < 3; round++) {
    for (const [call, outcome] of steps) {
      at += 1000;
      const checked = { runId: "r", at, ...call };
      const recorded = { ...checked, ...outcome };
      for (const [op, record] of [["check", checked], ["record", recorded]]) {
        assert.deepEqual(fieldWay[op](record), jsonWay[op](record), `${op} ${JSON.stringify(record, (_, v) => (typeof v === "bigint" ? `${v}n` : v))}`);
      }
    }
  }
  assert.deepEqual(fieldWay.exportRun("r"), jsonWay.exportRun("r"));
  // Both ways were taken: every check and 21 records a round field by field (BigInt and
  // Date arguments included; thrown strings, and Errors that are only a name and a message), the
  // five outcomes with a null result (the openclaw preset hashes it unlike a missing one), an
  // image part, extra result members, an Error carrying a status, or a thrown plain object as JSON.
  assert.deepEqual(counts, { fields: 3 * (26 + 21), json: 3 * 5 });
});

test("arguments cross as the bytes of their JSON text: strings of every UTF-16 unit, empty objects", () => {
  // A core that answers at once; the frame is read back from a plain buffer.
  const memory = { buffer: new ArrayBuffer(1 << 16) };
  const words = new Int32Array(memory.buffer);
  const bytes = new Uint8Array(memory.buffer);
  const core = { reserve: () => 0, check: () => glue.Status.Allow, record: () => glue.Status.Allow };
  const frame = new InputFrame(core, memory, glue);
  const argsOf = (args) => {
    assert.equal(frame.sendFields("check", { runId: "r", tool: "t", args }, 0, undefined), glue.Status.Allow);
    // The pieces after the header, in slot order: runId, tool, callId (absent), args.
    const start = glue.frameHeaderBytes() + words[glue.Slot.RunId] + words[glue.Slot.Tool];
    return bytes.subarray(start, start + words[glue.Slot.Args]);
  };
  const encoder = new TextEncoder();
  for (let unit = 0; unit < 0x10000; unit++) {
    const args = `a${String.fromCharCode(unit)}${unit > 0xff ? "b".repeat(70) : ""}`;
    assert.deepEqual(argsOf(args), encoder.encode(JSON.stringify(args)), `U+${unit.toString(16)}`);
  }
  for (const args of [{}, Object.create(null), [], { a: undefined }, { toJSON: () => "x" }, Object.defineProperty({}, "toJSON", { value: () => [1] }), "😀", "\uD83D\uDE00x"]) {
    assert.deepEqual(argsOf(args), encoder.encode(JSON.stringify(args)), String(JSON.stringify(args)));
  }
});

test("a long thrown message is hashed by the host, and asked for whole where it is needed", () => {
  const longError = `Error: ${"x".repeat(glue.maxScannedTextBytes())} tool exec not found`;
  for (const config of [PINNED, { preset: "openclaw" }, { ...PINNED, tools: { t: { ignore: ["/stack"] } } }]) {
    const counts = { fields: 0, json: 0 };
    const fieldWay = new LoopGuardCore(countingRuntime(counts), config);
    const jsonWay = new LoopGuardCore(jsonOnlyRuntime(), config);
    for (let i = 0; i < 4; i++) {
      for (const tool of ["t", "exec"]) {
        const call = { runId: "r", tool, args: { i: i % 2 }, at: 1000 * (i + 1) };
        for (const [op, record] of [["check", call], ["record", { ...call, error: new Error(longError) }]]) {
          assert.deepEqual(fieldWay[op](record), jsonWay[op](record), `${JSON.stringify(config)} ${op} ${tool} ${i}`);
        }
      }
    }
    assert.deepEqual(fieldWay.exportRun("r"), jsonWay.exportRun("r"));
    // The default engine takes the hashed message for a plain tool; a profile (exec, an ignored
    // pointer) and the openclaw preset ask for it whole, as JSON.
    const records = 8;
    assert.ok(counts.json >= (config.preset === "openclaw" ? records : records / 2), JSON.stringify({ config, counts }));
  }
});

test("an outcome whose call id was not checked sends its arguments after all", () => {
  const counts = { fields: 0, json: 0 };
  const fieldWay = new LoopGuardCore(countingRuntime(counts), PINNED);
  const jsonWay = jsonOnly();
  for (let i = 0; i < 4; i++) {
    const outcome = { runId: "r", tool: "lookup", args: { id: i % 2 }, callId: `never-checked-${i}`, at: i, result: "same" };
    assert.deepEqual(fieldWay.record(outcome), jsonWay.record(outcome));
  }
  assert.deepEqual(fieldWay.exportRun("r"), jsonWay.exportRun("r"));
  assert.equal(counts.json, 4, "each record went the JSON way after the core asked for the arguments");
});

test("strings with lone surrogates take the JSON way: tool output is accepted, identifiers are refused", () => {
  const counts = { fields: 0, json: 0 };
  const fieldWay = new LoopGuardCore(countingRuntime(counts));
  const jsonWay = jsonOnly();
  for (const [call, field] of [[{ tool: "bad\uD800" }, "tool"], [{ tool: "t", runId: "\uDC00" }, "runId"], [{ tool: "t", callId: "c\uD83D" }, "callId"]]) {
    assert.throws(() => fieldWay.check(call), (e) => e.code === "invalid_record" && e.field === field);
    assert.throws(() => jsonWay.check(call), (e) => e.code === "invalid_record" && e.field === field);
  }
  // [outcome, records sent as JSON]: a text cannot cross as UTF-8; details cross as JSON text anyway.
  const outcomes = [
    [{ tool: "t", args: { q: "\uDE00" }, result: { content: [{ type: "text", text: "x\uD800y" }] } }, 1],
    [{ tool: "t", args: { q: "\uDE00" }, result: "cut \uD83D" }, 1],
    [{ tool: "t", args: { q: "\uDE00" }, result: { content: [{ type: "text", text: "ok" }], details: { note: "\uD83D" } } }, 0],
  ];
  for (let round = 0; round < 3; round++) {
    for (const [i, [sent, sentAsJson]] of outcomes.entries()) {
      // An explicit time: the snapshots compared below hold it.
      const outcome = { ...sent, at: 1000 * (round * outcomes.length + i) };
      const { result: _result, ...call } = outcome;
      // The arguments cross as JSON text (escaped) either way; the result text cannot.
      assert.deepEqual(fieldWay.check(call), jsonWay.check(call));
      counts.json = 0;
      assert.deepEqual(fieldWay.record(outcome), jsonWay.record(outcome));
      assert.equal(counts.json, sentAsJson);
    }
  }
  assert.deepEqual(fieldWay.exportRun(), jsonWay.exportRun());
  assert.equal(fieldWay.check({ tool: "t" }).action, "allow", "the guard still works");
});
