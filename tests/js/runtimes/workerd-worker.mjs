// The Worker of the workerd tests. It imports the package by its name ("tool-loop-guard": the
// `workerd` entry) and answers:
//   POST /corpus    body [{file, scenario}]  -> runCorpus results, plus coreVersion and windowKeyed
//   GET  /outbound?to=URL                    -> whether fetch() could reach URL (it must not)
// It runs only under module names (workerd.test.mjs) or bundled next to a copy of the runner
// (packaging.test.mjs): "./scenario-runner.mjs" is tests/js/scenario-runner.mjs.
import * as api from "tool-loop-guard";
import { runCorpus, windowKeyed } from "./scenario-runner.mjs";

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/corpus") {
      const corpus = await request.json();
      const started = Date.now();
      const results = runCorpus(corpus, api);
      return Response.json({ coreVersion: api.coreVersion(), ms: Date.now() - started, windowKeyed: windowKeyed(api), results });
    }
    if (url.pathname === "/outbound") {
      try {
        const response = await fetch(url.searchParams.get("to"));
        return Response.json({ reached: true, status: response.status });
      } catch (error) {
        return Response.json({ reached: false, error: String(error) });
      }
    }
    return new Response("not found", { status: 404 });
  },
};
