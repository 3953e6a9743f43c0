/**
 * Where a command writes: stdout (or a file), and whether ANSI colour is wanted there (a terminal,
 * and NO_COLOR unset or empty, as https://no-color.org asks).
 */
import fs from "node:fs";

export interface Output {
  readonly colour: boolean;
  write(text: string): void;
  close(): Promise<void>;
}

export function stdoutOutput(): Output {
  const noColor = process.env.NO_COLOR;
  return {
    colour: process.stdout.isTTY === true && (noColor === undefined || noColor === ""),
    write(text) {
      process.stdout.write(text);
    },
    close: async () => {},
  };
}

export function fileOutput(file: string): Output {
  const fd = fs.openSync(file, "w");
  return {
    colour: false,
    write(text) {
      fs.writeSync(fd, text);
    },
    close: async () => fs.closeSync(fd),
  };
}
