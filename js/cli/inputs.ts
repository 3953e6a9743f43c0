/**
 * Reading every input of a command in turn: a progress bar over all of them, and bad input (a
 * TrajectoryError: file, line, reason) reported on stderr as `file:line: reason` without stopping
 * the other inputs; an input in which a format named with --format finds no tool call is bad
 * input too. The caller's exit code is 2 when any input was bad.
 */
import { type FormatId, TrajectoryError } from "../replay/index.js";
import { type Input, inputOf, readInput, type RunSink } from "./input.js";
import { progressBar } from "./progress.js";

/** Reads each file into the sink `open` makes for it; returns how many inputs were bad. */
export async function readInputs(files: string[], format: FormatId | undefined, open: (input: Input, index: number) => RunSink & { abandon?(): void }, done: (input: Input, sink: RunSink) => void): Promise<number> {
  const inputs: (Input | TrajectoryError)[] = files.map((file) => {
    try {
      return inputOf(file);
    } catch (error) {
      if (error instanceof TrajectoryError) return error;
      throw error;
    }
  });
  const sizes = inputs.map((i) => (i instanceof TrajectoryError ? 0 : i.size));
  const total = sizes.includes(undefined) ? undefined : sizes.reduce<number>((a, b) => a + (b ?? 0), 0);
  const progress = progressBar(total);
  let bad = 0;
  for (const [index, input] of inputs.entries()) {
    if (input instanceof TrajectoryError) {
      badInput(input);
      bad++;
      continue;
    }
    progress.input(input.name);
    const sink = open(input, index);
    let calls = 0;
    const counting: RunSink = {
      step(runId, stepFormat, step) {
        if (!("event" in step)) calls++;
        sink.step(runId, stepFormat, step);
      },
      end: (runs) => sink.end(runs),
    };
    try {
      await readInput(input, format, counting, (bytes) => progress.advance(bytes));
      // A format named by the user that finds no call in the input is most likely the wrong one.
      if (format !== undefined && calls === 0) throw new TrajectoryError(`no tool call read as --format ${format} (another format? without --format it is detected)`, input.name);
    } catch (error) {
      if (!(error instanceof TrajectoryError)) throw error;
      sink.abandon?.();
      progress.done();
      badInput(error);
      bad++;
      continue;
    }
    progress.done(); // erased before the command prints this input's runs
    done(input, sink);
  }
  progress.done();
  return bad;
}

function badInput(error: TrajectoryError): void {
  process.stderr.write(`tool-loop-guard: bad input: ${error.message}\n`);
}
