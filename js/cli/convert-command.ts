/**
 * `tool-loop-guard convert`: any supported format written as this project's JSONL (runLine,
 * stepLine): per run a line of what the source says, then one line per step. Reading the output
 * back gives the same runs. Exit code 0, or 2 when an input was bad.
 */
import { runLine, stepLine } from "../replay/index.js";
import { TrajectorySink } from "./collect.js";
import { readInputs } from "./inputs.js";
import type { ConvertOptions } from "./options.js";
import type { Output } from "./output.js";

export async function convertCommand(options: ConvertOptions, out: Output): Promise<number> {
  const bad = await readInputs(
    options.files,
    options.format,
    () => new TrajectorySink(),
    (input, sink) => {
      for (const { runId, format, meta, steps } of (sink as TrajectorySink).trajectories) {
        const lines = [runLine(runId, meta, { format, file: input.path === "-" ? undefined : input.name }), ...steps.map((step) => stepLine(runId, step))];
        out.write(`${lines.join("\n")}\n`);
      }
    },
  );
  return bad > 0 ? 2 : 0;
}
