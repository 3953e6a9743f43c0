// Replays the recorded agent traces in examples/traces/ through the built package, the way a
// gateway would use it: check() before each tool call (a refused call is not run), record() after.
// Prints a per-call timeline and a summary per trace and config. Run `npm run build` first.
import fs from "node:fs";
import { LoopGuard } from "tool-loop-guard";

const dir = new URL("./traces/", import.meta.url);
const traces = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(fs.readFileSync(new URL(f, dir), "utf8")));

const shown = (v) => (v.detector ? `${v.action.padEnd(5)} ${v.detector} (${v.count})` : v.action);

/** Replays one trace; returns the summary facts. */
function replay(trace, label, config) {
  const guard = new LoopGuard(config);
  const facts = { firstWarn: null, firstBlock: null, stoppedAt: null, ran: 0, hint: null, refusal: null };
  console.log(`\n=== ${trace.name} [${label}] ===`);
  console.log(`  ${"#".padStart(3)}  ${"tool".padEnd(16)}${"check".padEnd(36)}record`);
  for (const [index, call] of trace.calls.entries()) {
    const n = index + 1;
    const { result, error, ...proposed } = call;
    const checked = guard.check(proposed);
    let after;
    if (checked.action === "block" || checked.action === "stop") {
      after = checked.action === "stop" ? "(run ended)" : "(not run: refusal returned to the model)";
      facts.firstBlock ??= n;
      facts.refusal ??= checked.refusal.message;
    } else {
      facts.ran += 1;
      const recorded = guard.record(call);
      after = shown(recorded);
      if (checked.action === "warn" || recorded.action === "warn") {
        facts.firstWarn ??= n;
        facts.hint ??= (checked.hint ?? recorded.hint);
      }
    }
    console.log(`  ${String(n).padStart(3)}  ${call.tool.padEnd(16)}${shown(checked).padEnd(36)}${after}`);
    if (checked.action === "stop") {
      facts.stoppedAt = n;
      break;
    }
  }
  guard.free();

  const total = trace.calls.length;
  const at = (n) => (n === null ? "none" : `call ${n}`);
  console.log(`  summary: first warning ${at(facts.firstWarn)}, first block ${at(facts.firstBlock)}, run stopped ${at(facts.stoppedAt)}`);
  console.log(`           tool calls run ${facts.ran} of ${total} (unguarded: ${total}), saved ${total - facts.ran}`);
  if (facts.hint) console.log(`  hint for the model:    ${facts.hint}`);
  if (facts.refusal) console.log(`  refusal for the model: ${facts.refusal}`);
  return facts;
}

for (const trace of traces) {
  console.log(`\n${trace.name}: ${trace.about}`);
  for (const [label, config] of Object.entries(trace.configs ?? { default: {} })) replay(trace, label, config);
}
