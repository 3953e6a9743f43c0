/**
 * `tool-loop-guard replay`: every run of every input through one LoopGuard, printed as a timeline
 * and a summary per run and a total (or JSON Lines with `--json`). Exit code 0 when nothing was
 * refused, 1 when something would have been, 2 when an input was bad.
 */
import { LoopGuard } from "../entries/node.js";
import { addToTotals, emptyTotals } from "../replay/index.js";
import { ReplaySink } from "./collect.js";
import { readInputs } from "./inputs.js";
import type { ReplayOptions } from "./options.js";
import { paint, runHeading, summaryLine, timelineLines, totalLine } from "./render.js";
import type { Output } from "./output.js";

/**
 * The replay's config with `sameAs` on, so that its records name the results a host could drop
 * from the model's context (`preset: "openclaw"` has no such field: its config is left as it is).
 */
function withSameAs(config: ReplayOptions["config"]): ReplayOptions["config"] {
  return config.preset === "openclaw" ? config : { ...config, sameAs: true };
}

export async function replayCommand(options: ReplayOptions, out: Output): Promise<number> {
  const guard = new LoopGuard(withSameAs(options.config));
  const p = paint(out.colour);
  const totals = emptyTotals();
  try {
    const bad = await readInputs(
      options.files,
      options.format,
      (input, index) => new ReplaySink(guard, input.name, index, !options.quiet),
      (input, sink) => {
        for (const report of (sink as ReplaySink).reports) {
          addToTotals(totals, report.summary);
          if (options.json) {
            out.write(`${JSON.stringify({ type: "run", file: input.name, ...report })}\n`);
            continue;
          }
          const lines = [runHeading(report, input.name, p)];
          if (!options.quiet) lines.push(...timelineLines(report, p));
          lines.push(summaryLine(report, p), "");
          out.write(`${lines.join("\n")}\n`);
        }
      },
    );
    if (options.json) out.write(`${JSON.stringify({ type: "total", ...totals, badInputs: bad })}\n`);
    // When no input could be read there is nothing to total: the errors on stderr say it all.
    else if (bad < options.files.length) out.write(`${totalLine(totals, p, bad)}\n`);
    if (bad > 0) return 2;
    return totals.runsRefused > 0 ? 1 : 0;
  } finally {
    guard.free();
  }
}
