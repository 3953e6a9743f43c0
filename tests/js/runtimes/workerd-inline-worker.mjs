// A Worker that imports `tool-loop-guard/inline`, which the package documents as unusable in
// workerd: workerd refuses to compile wasm from bytes. GET / reports what `new LoopGuard()` does.
import { LoopGuard } from "tool-loop-guard/inline";

export default {
  async fetch() {
    try {
      new LoopGuard().free();
      return Response.json({ constructed: true });
    } catch (error) {
      return Response.json({ constructed: false, name: error?.name, message: String(error?.message ?? error) });
    }
  },
};
