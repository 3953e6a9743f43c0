// Why records cross into wasm in two forms (src/record/frame.rs): a bench side that sends every
// record as the JSON form, i.e. what the package would cost if the JSON form were the only way in.
// It drives the package's own modules (pkg/encode.js, pkg/frame.js) against a real guard of the
// same glue: the record stringified (long texts hashed as the Node entry does), written as a JSON
// frame, the verdict read from its answer frame when the core holds one. bench/run.mjs times it beside the package,
// whose ordinary records take the fields form.
import { createHash } from "node:crypto";

const PKG_URL = new URL("../pkg/", import.meta.url);

/** The side `json form`, for timing.mjs's compareSides, on the package's already-instantiated `glue`. */
export async function jsonFormSide(glue) {
  const { encodeForCore, encodeRecord } = await import(new URL("encode.js", PKG_URL).href);
  const { InputFrame } = await import(new URL("frame.js", PKG_URL).href);
  const { answerTagsOf, readAnswer } = await import(new URL("answer.js", PKG_URL).href);
  const tags = answerTagsOf(glue);
  const largeTexts = { hash: (text) => createHash("sha256").update(text).digest("hex"), above: glue.maxScannedTextBytes() };
  const ALLOW = { action: "allow" };
  const create = () => {
    const raw = new glue.WasmGuard();
    const frame = new InputFrame(raw, glue.wasmMemory(), glue);
    const verdict = (status) => (status === glue.Status.Verdict ? readAnswer(glue.wasmMemory().buffer, raw.answer(), tags) : ALLOW);
    return {
      raw,
      check: (call) => verdict(frame.sendJson("check", encodeRecord(call), undefined, call.at)),
      record(outcome) {
        const [json, side] = encodeForCore(outcome, largeTexts);
        return verdict(frame.sendJson("record", json, side, outcome.at));
      },
      endRun: (runId) => raw.endRun(runId),
    };
  };
  return { name: "json form", create, dispose: (guard) => guard.raw.free() };
}
