// The Worker of workerd.test.mjs's bad-input test: runs ../hostile-cases.mjs (module
// "hostile-cases.mjs") through the package's workerd entry and answers GET / with
// {cases, retained}; the wasm memory is read through the package's own instance.js module.
import * as api from "tool-loop-guard";
import { currentRuntime } from "./node_modules/tool-loop-guard/instance.js";
import { hostileCases, nonRetentionScan } from "./hostile-cases.mjs";

export default {
  async fetch() {
    const cases = hostileCases(api);
    const retained = nonRetentionScan(api, () => currentRuntime().memory);
    return Response.json({ cases, retained });
  },
};
