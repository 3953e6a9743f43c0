/**
 * Short, one-line forms of what a timeline shows: a call's arguments and a verdict. Presentation
 * only; shared by the CLI and any page that renders a replay.
 */
import { isObject } from "./values.js";

/** A call's arguments on one line of at most `width` characters: a shell command as itself, else JSON. */
export function shortArgs(args: unknown, width = 60): string {
  const keys = isObject(args) ? Object.keys(args) : [];
  const text =
    isObject(args) && keys.length === 1 && typeof args.command === "string"
      ? args.command
      : typeof args === "string"
        ? args
        : (JSON.stringify(args) ?? "");
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}

/** `action`, or `action detector (count)` when the verdict names a detector. */
export function verdictText(verdict: { action: string; detector: string | null; count: number }): string {
  return verdict.detector === null ? verdict.action : `${verdict.action} ${verdict.detector} (${verdict.count})`;
}
