import { LoopGuard } from "tool-loop-guard";
import { loadRuns, shadowReplay, callsOf } from "./devset.mjs";
import fs from "node:fs";
const dir = new URL("./runs/", import.meta.url).pathname;
const files = fs.readdirSync(dir).filter(f => f.endsWith(".jsonl") || f.endsWith(".gz")).map(f => `${dir}${f}`);
const runs = loadRuns(files);
const guard = new LoopGuard({ preset: "default", policy: "shadow" });
const bySource = {}; const texts = new Map();
for (const [id, t] of runs) {
  const { warnings, calls } = shadowReplay(guard, t, id);
  for (const w of warnings) if (w.detector === "transient_failure") {
    const src = id.split("/")[0]; bySource[src] = (bySource[src] ?? 0) + 1;
    const step = calls[w.index - 1].step;
    const v = step.error ?? step.result; const s = (typeof v === "string" ? v : JSON.stringify(v)) ?? "";
    const key = s.slice(0, 200).replace(/\s+/g, " ");
    texts.set(key, (texts.get(key) ?? 0) + 1);
  }
}
console.log(bySource);
for (const [k, n] of [...texts].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(n, k);
