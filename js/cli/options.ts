/**
 * Command-line options of `tool-loop-guard replay | sweep | convert`, the usage text, and the
 * guard config they describe (`--config file.json`, `--preset`). Every mistake is a UsageError
 * (exit code 2) saying what is wrong.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import type { LoopGuardConfig } from "../types.js";
import { FORMATS, type FormatId, type GridAxis, isFormat } from "../replay/index.js";

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const USAGE = `Usage:
  tool-loop-guard replay [options] <file...|->   replay trajectories through the guard
  tool-loop-guard sweep [options] <file...|->    replay under a grid of settings
  tool-loop-guard convert [options] <file...|->  write trajectories as tool-loop-guard JSONL

replay options:
  --format <id>        read every input as this format (default: detected from content)
  --preset <name>      guard preset (overrides the config file's)
  --config <file>      guard config as a JSON object (LoopGuardConfig)
  --json               JSON Lines: one line per run (timeline and summary), then a total line
  --quiet              per-run summaries and the total only, no timelines
sweep options:
  --preset <name>      a preset to try (repeatable; default: the config as it is)
  --grid <path=v,v>    a config path and the values to try (repeatable), e.g. criticalThreshold=3,4,5
  --ok <file|id,id>    runs that are fine: a file of run ids (one a line) or ids separated by commas
  --config, --format, --json as for replay
convert options:
  --format <id>        as for replay
  --output <file>      write here instead of stdout

Formats: ${FORMATS.join(", ")}
Exit codes: 0 nothing refused; 1 something would have been refused (replay); 2 bad input or usage.
Colour on a terminal unless NO_COLOR is set. Docs: docs/replay.md in the repository.`;

export interface CommonOptions {
  files: string[];
  format: FormatId | undefined;
  json: boolean;
}

export interface ReplayOptions extends CommonOptions {
  config: LoopGuardConfig;
  quiet: boolean;
}

export interface SweepOptions extends CommonOptions {
  config: LoopGuardConfig;
  presets: string[];
  grid: GridAxis[];
  ok: Set<string>;
}

export interface ConvertOptions {
  files: string[];
  format: FormatId | undefined;
  output: string | undefined;
}

type Spec = NonNullable<Parameters<typeof parseArgs>[0]>["options"];

type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

function parse(argv: string[], options: Spec): { values: Values; positionals: string[] } {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as { values: Values; positionals: string[] };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function formatOption(value: string | undefined): FormatId | undefined {
  if (value === undefined) return undefined;
  if (!isFormat(value)) throw new UsageError(`--format ${value}: not a format (one of ${FORMATS.join(", ")})`);
  return value;
}

function filesOf(positionals: string[]): string[] {
  if (positionals.length === 0) throw new UsageError("no input: name files, or - for stdin");
  return positionals;
}

/** The config file's object; a file that cannot be read or is not a JSON object is a UsageError. */
function configFile(file: string | undefined): LoopGuardConfig {
  if (file === undefined) return {};
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`--config ${file}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--config ${file}: not valid JSON: ${(error as Error).message}`);
  }
  if (typeof config !== "object" || config === null || Array.isArray(config)) throw new UsageError(`--config ${file}: not a JSON object`);
  return config as LoopGuardConfig;
}

const COMMON: Spec = {
  format: { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
};

export function replayOptions(argv: string[]): ReplayOptions {
  const { values, positionals } = parse(argv, { ...COMMON, preset: { type: "string" }, quiet: { type: "boolean" } });
  const config = configFile(values.config as string | undefined);
  if (values.preset !== undefined) config.preset = values.preset as LoopGuardConfig["preset"];
  return {
    files: filesOf(positionals),
    format: formatOption(values.format as string | undefined),
    json: values.json === true,
    quiet: values.quiet === true,
    config,
  };
}

/** A grid value: JSON when it parses (numbers, booleans, null), else the text itself. */
function gridValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function gridAxis(text: string): GridAxis {
  const eq = text.indexOf("=");
  const path = text.slice(0, eq).trim();
  const values = text.slice(eq + 1).split(",").map((v) => v.trim());
  if (eq <= 0 || path === "" || values.some((v) => v === "")) throw new UsageError(`--grid ${text}: expected path=value,value (e.g. criticalThreshold=3,4,5)`);
  return { path, values: values.map(gridValue) };
}

/** Run ids marked as fine: the lines of a file (blank lines and # comments skipped), or ids separated by commas. */
function okRuns(values: string[]): Set<string> {
  const ids = new Set<string>();
  for (const value of values) {
    const isFile = fs.existsSync(value) && fs.statSync(value).isFile();
    const listed = isFile ? fs.readFileSync(value, "utf8").split(/\r?\n/) : value.split(",");
    for (const id of listed.map((l) => l.trim())) if (id !== "" && !(isFile && id.startsWith("#"))) ids.add(id);
  }
  return ids;
}

export function sweepOptions(argv: string[]): SweepOptions {
  const { values, positionals } = parse(argv, {
    ...COMMON,
    preset: { type: "string", multiple: true },
    grid: { type: "string", multiple: true },
    ok: { type: "string", multiple: true },
  });
  const presets = (values.preset as string[] | undefined) ?? [];
  const grid = ((values.grid as string[] | undefined) ?? []).map(gridAxis);
  if (presets.length === 0 && grid.length === 0) throw new UsageError("sweep needs --preset or --grid (what to vary)");
  return {
    files: filesOf(positionals),
    format: formatOption(values.format as string | undefined),
    json: values.json === true,
    config: configFile(values.config as string | undefined),
    presets,
    grid,
    ok: okRuns((values.ok as string[] | undefined) ?? []),
  };
}

export function convertOptions(argv: string[]): ConvertOptions {
  const { values, positionals } = parse(argv, { format: { type: "string" }, output: { type: "string" } });
  return { files: filesOf(positionals), format: formatOption(values.format as string | undefined), output: values.output as string | undefined };
}
