#!/usr/bin/env node
/**
 * The `tool-loop-guard` command (Node): `replay`, `sweep` and `convert` over trajectory files in
 * any format tool-loop-guard/replay reads. Exit codes: 0 nothing refused, 1 something would have
 * been refused (replay), 2 bad input, bad settings or bad usage (the reason on stderr), or an
 * internal failure.
 */
import fs from "node:fs";
import { LoopGuardError } from "../errors.js";
import { convertCommand } from "./convert-command.js";
import { convertOptions, replayOptions, sweepOptions, USAGE, UsageError } from "./options.js";
import { fileOutput, type Output, stdoutOutput } from "./output.js";
import { replayCommand } from "./replay-command.js";
import { sweepCommand } from "./sweep-command.js";

const BAD = 2;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    // Bad usage: the reason and the usage on stderr, nothing on stdout.
    process.stderr.write(`tool-loop-guard: no command given (replay, sweep or convert)\n${USAGE}\n`);
    return BAD;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === "--version") {
    const manifest = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    process.stdout.write(`${manifest.version}\n`);
    return 0;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === "replay") return replayCommand(replayOptions(rest), stdoutOutput());
  if (command === "sweep") return sweepCommand(sweepOptions(rest), stdoutOutput());
  if (command === "convert") {
    const options = convertOptions(rest);
    const out: Output = options.output === undefined ? stdoutOutput() : fileOutput(options.output);
    try {
      return await convertCommand(options, out);
    } finally {
      await out.close();
    }
  }
  throw new UsageError(`unknown command ${command} (replay, sweep or convert)`);
}

// A closed pipe (`| head`) ends the command quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) process.stderr.write(`tool-loop-guard: ${error.message}\n(tool-loop-guard --help for usage)\n`);
    else if (error instanceof LoopGuardError && error.code === "invalid_config") process.stderr.write(`tool-loop-guard: bad config: ${error.message}\n`);
    // Anything else is a failure of this tool, never "something was refused" (exit code 1).
    else process.stderr.write(`tool-loop-guard: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = BAD;
  },
);
