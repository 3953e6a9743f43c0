// The floor of the package's design on the small-record rows (a) and (b) of bench/run.mjs: what a
// step would cost if the core's own work (canonical arguments, detectors, bookkeeping) were free.
// Two parts:
//   hand-over: the wrapper's share, i.e. the shape checks, `args`/`details` stringified and the
//     strings written into a buffer (pkg/frame.js driven against a core that answers at once),
//     timed by bench/run.mjs as a third side, interleaved with the package and the baseline;
//   SHA-256: the 64-byte blocks that the arguments' and result texts' digests need at the least
//     (their bytes alone, without the framing the core adds), at the in-wasm rate measured over 1 MiB.
// Any speed-up above baseline / floor is out of reach for a wrapper that hands records to SHA-256
// in wasm.
import { inWasmSha256 } from "./package-handles.mjs";
import { medianNs } from "./timing.mjs";

const FRAME_URL = new URL("../pkg/frame.js", import.meta.url);
const encoder = new TextEncoder();

/** Which steps the package refuses (their outcome is not recorded). */
export function refusedSteps(LoopGuard, steps) {
  const guard = new LoopGuard();
  const refused = steps.map(({ call, outcome, endRun }) => {
    const { action } = guard.check(call);
    const stop = action === "block" || action === "stop";
    if (!stop) guard.record(outcome);
    if (endRun) guard.endRun(call.runId);
    return stop;
  });
  guard.free();
  return refused;
}

/** SHA-256 blocks of one digest over `length` bytes (padding included). */
const blocks = (length) => Math.ceil((length + 9) / 64);

function resultTexts(result) {
  if (typeof result === "string") return [result];
  return Array.isArray(result?.content) ? result.content.map((part) => part.text ?? "") : [];
}

/** ns per 64-byte block of the package's in-wasm SHA-256, from 1 MiB digests. */
function wasmNsPerBlock(glue) {
  const sha256 = inWasmSha256(glue);
  if (sha256 === undefined) return undefined;
  const bytes = new Uint8Array(1024 * 1024).fill(0x61);
  return medianNs(() => sha256(bytes), 11) / blocks(bytes.length);
}

/**
 * A bench side (as timing.mjs's compareSides takes) whose "guard" only hands each record over, as
 * the wrapper does (pkg/frame.js, texts over `largeTexts.above` hashed by `largeTexts.hash` when
 * given), to a core that answers at once, and refuses the steps `refused` marks (by index).
 */
export async function handOverSide(glue, refused, largeTexts) {
  const { InputFrame } = await import(FRAME_URL.href);
  // The frame is written into a plain buffer, for a core that answers at once.
  const memory = { buffer: new ArrayBuffer(1 << 20) };
  const instantCore = { reserve: () => 0, check: () => 0, record: () => 0 };
  const handOver = () => {
    const frame = new InputFrame(instantCore, memory, glue);
    let step = 0;
    return {
      check(call) {
        frame.sendFields("check", call, call.at, largeTexts);
        return { action: refused[step++] ? "block" : "allow" };
      },
      record(outcome) {
        frame.sendFields("record", outcome, outcome.at, largeTexts);
        return { action: "allow" };
      },
      endRun() {},
    };
  };
  return { name: "hand-over", create: handOver, dispose: () => {} };
}

/**
 * The floor of `steps`, or undefined without an in-wasm SHA-256: `side`, the hand-over side
 * (`handOverSide`) refusing the steps the package refuses; and `shaNs`, the SHA-256 share per
 * step. The floor per step is the side's time plus `shaNs`.
 */
export async function designFloor({ LoopGuard, glue }, steps) {
  const refused = refusedSteps(LoopGuard, steps); // first: a guard instantiates the wasm
  const nsPerBlock = wasmNsPerBlock(glue);
  if (nsPerBlock === undefined) return undefined;
  let totalBlocks = 0;
  steps.forEach(({ call, outcome }, i) => {
    totalBlocks += blocks(encoder.encode(JSON.stringify(call.args ?? {})).length);
    if (!refused[i]) totalBlocks += blocks(resultTexts(outcome.result).reduce((sum, text) => sum + encoder.encode(text).length, 0));
  });
  return { side: await handOverSide(glue, refused, undefined), shaNs: (totalBlocks / steps.length) * nsPerBlock };
}
