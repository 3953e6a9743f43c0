/**
 * Writing runs as this project's JSONL (see formats/jsonl.ts): a `{event: "run", runId, meta}`
 * line with what the source said (plus the format and file it came from), and one line per step.
 * Reading the output back gives the same runs, steps and meta.
 */
import type { FormatId, RunMeta, Step } from "./types.js";

/** The line saying what the source knows about a run. */
export function runLine(runId: string, meta: RunMeta, from?: { format: FormatId; file?: string }): string {
  const stated: RunMeta = { ...meta };
  if (from !== undefined) {
    stated.sourceFormat ??= from.format;
    if (from.file !== undefined) stated.sourceFile ??= from.file;
  }
  return JSON.stringify({ event: "run", runId, meta: stated });
}

/** The line of one step of a run. */
export function stepLine(runId: string, step: Step): string {
  return JSON.stringify({ runId, ...step });
}
