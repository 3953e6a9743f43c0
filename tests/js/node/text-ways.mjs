// The three ways the wrapper can hand a long result text to the core, for the tests that hold
// them to one answer: `hashed` (the Node entry: SHA-256 by node:crypto, sent as `textSha256`),
// `side` (other runtimes: the first long text passed beside the JSON) and `inline` (no size limit
// known: every text inside the JSON), the reference the other two must equal.
import assert from "node:assert/strict";
import { init, LoopGuard } from "tool-loop-guard";
import { LoopGuardCore } from "../../../pkg/guard.js";
import { WasmRuntime } from "../../../pkg/runtime.js";
import * as glue from "../../../pkg/tool_loop_guard.js";

await init(); // instantiates the glue shared with the package's Node entry

/** Texts above this many UTF-8 bytes go out of line (hashed or side). */
export const limit = glue.maxScannedTextBytes();

/** A fresh guard for each way. */
export function textWays() {
  return {
    hashed: new LoopGuard(),
    side: new LoopGuardCore(new WasmRuntime(glue)),
    // Without maxScannedTextBytes the wrapper sends every text inline.
    inline: new LoopGuardCore(new WasmRuntime({ ...glue, maxScannedTextBytes: undefined })),
  };
}

/** Asserts that `use(guard)` answers the same for the hashed and side ways as for the inline one. */
export function assertWaysAgree(ways, use) {
  const [hashed, side, inline] = [ways.hashed, ways.side, ways.inline].map(use);
  assert.deepEqual(hashed, inline);
  assert.deepEqual(side, inline);
}
