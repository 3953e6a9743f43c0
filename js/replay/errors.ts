/**
 * TrajectoryError: the one error the readers throw for input they cannot read, naming the file,
 * the line (where the input has lines) and the reason.
 */
import { syntaxErrorOffset } from "./json-position.js";

export class TrajectoryError extends Error {
  readonly code = "bad_input";
  /** The file (the name the reader was given), if any. */
  readonly file: string | undefined;
  /** 1-based line number, when the input has lines and the position is known. */
  readonly line: number | undefined;
  /** What is wrong, without the location. */
  readonly reason: string;

  constructor(reason: string, file?: string, line?: number) {
    super(`${file ?? "<input>"}${line === undefined ? "" : `:${line}`}: ${reason}`);
    this.name = "TrajectoryError";
    this.reason = reason;
    this.file = file;
    this.line = line;
  }
}

/** The 1-based line of `position` (a UTF-16 offset) in `text`. */
function lineAt(text: string, position: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < position; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * Parses JSON text, turning a syntax error into a TrajectoryError at its line (`firstLine`: the
 * line the text starts on, for one line of a JSONL file).
 */
export function parseJson(text: string, file: string | undefined, firstLine = 1): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = syntaxErrorOffset(text);
    const line = firstLine + (offset < 0 ? 0 : lineAt(text, offset) - 1);
    throw new TrajectoryError(`not valid JSON: ${message}`, file, line);
  }
}
