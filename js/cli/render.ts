/**
 * The replay CLI's text output: per run a header, a timeline (call, tool, short args, verdict,
 * whether it came on the call or on its result, detector, count, and for a refused call whether
 * it withheld new information or was costless) and a summary line; after all runs a total. ANSI
 * colour only when the caller asks for it.
 */
import { ACTIONS } from "../names.js";
import type { ReplayTotals, RunReport, TimelineEvent, TimelineRow } from "../replay/index.js";

export interface Paint {
  warn(text: string): string;
  refuse(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const ansi = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

export function paint(colour: boolean): Paint {
  if (!colour) {
    const plain = (text: string) => text;
    return { warn: plain, refuse: plain, dim: plain, bold: plain };
  }
  return { warn: ansi(33, 39), refuse: ansi(31, 39), dim: ansi(2, 22), bold: ansi(1, 22) };
}

/** The action a timeline row shows: the stronger of its check and record verdicts. */
function rowAction(row: TimelineRow): string {
  const record = row.record?.action ?? "allow";
  return ACTIONS.indexOf(record) > ACTIONS.indexOf(row.check.action) ? record : row.check.action;
}

function isEvent(entry: TimelineRow | TimelineEvent): entry is TimelineEvent {
  return "event" in entry;
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** `runId  format  file  model … exit …`: what identifies a run and what its source says. */
export function runHeading(report: RunReport, file: string, p: Paint): string {
  const facts: string[] = [report.format, file];
  const { model, exitStatus, solved } = report.meta;
  if (typeof model === "string") facts.push(`model ${model}`);
  if (typeof exitStatus === "string") facts.push(`exit ${exitStatus}`);
  if (typeof solved === "boolean") facts.push(solved ? "solved" : "not solved");
  return `${p.bold(`run ${report.runId}`)}  ${p.dim(facts.join(" · "))}`;
}

export function timelineLines(report: RunReport, p: Paint): string[] {
  const rows = (report.timeline ?? []).filter((e): e is TimelineRow => !isEvent(e));
  const indexWidth = Math.max(1, String(report.summary.calls).length);
  const toolWidth = Math.min(28, Math.max(4, ...rows.map((r) => r.tool.length)));
  const argsWidth = Math.max(4, ...rows.map((r) => r.args.length));
  const detectorWidth = Math.max(8, ...rows.map((r) => (r.detector ?? "").length));
  const lines = [p.dim(`  ${"#".padStart(indexWidth)}  ${"tool".padEnd(toolWidth)}  ${"args".padEnd(argsWidth)}  verdict  on      ${"detector".padEnd(detectorWidth)}  count`)];
  for (const entry of report.timeline ?? []) {
    if (isEvent(entry)) {
      lines.push(p.dim(`  ${"".padStart(indexWidth)}  -- ${entry.event} after call ${entry.after}`));
      continue;
    }
    const action = rowAction(entry);
    const tool = entry.tool.length > toolWidth ? `${entry.tool.slice(0, toolWidth - 1)}…` : entry.tool;
    const notes = [entry.failed ? "error" : "", refusalNote(entry, action), retryNote(entry), entry.sameAs === undefined ? "" : `same result as ${entry.sameAs}`]
      .filter((n) => n !== "")
      .join(", ");
    const detector = entry.detector === null ? "" : entry.detector;
    const count = entry.detector === null ? "" : String(entry.count);
    // A verdict comes on the call (check, before it ran) or on its result (record, after it ran).
    const on = entry.detector === null ? "" : entry.from === "check" ? "call" : "result";
    const verdict = action.padEnd(7);
    const shown = action === "warn" ? p.warn(verdict) : action === "block" || action === "stop" ? p.refuse(verdict) : p.dim(verdict);
    const line = `  ${String(entry.index).padStart(indexWidth)}  ${tool.padEnd(toolWidth)}  ${entry.args.padEnd(argsWidth)}  ${shown}  ${on.padEnd(6)}  ${detector.padEnd(detectorWidth)}  ${count.padStart(5)}${notes === "" ? "" : `  ${notes}`}`;
    lines.push(line.trimEnd());
  }
  return lines;
}

/** What a refused call cost (costless when it would only have repeated its last result); a stop also ends the run. */
function refusalNote(entry: TimelineRow, action: string): string {
  if (entry.cost === undefined) return "";
  const cost = entry.cost === "costless" ? "costless" : "withheld new information";
  return action === "stop" ? `${cost}; run ended` : cost;
}

/** `retry after 2 s`: the wait a transient failure's verdict advises (the record's, else the check's). */
function retryNote(entry: TimelineRow): string {
  const ms = entry.record?.retryAfterMs ?? entry.check.retryAfterMs;
  return ms === undefined ? "" : `retry after ${ms >= 1000 ? `${+(ms / 1000).toFixed(1)} s` : `${ms} ms`}`;
}

/** `B of R result bytes repeat an earlier identical result (not resent with sameAs)`. */
function notResentText(notResent: number, resultBytes: number): string {
  const share = resultBytes === 0 ? 0 : (100 * notResent) / resultBytes;
  return `${plural(notResent, "result byte")} (${share.toFixed(1)} %) repeat an earlier identical result (a host using sameAs would not resend them)`;
}

/** `N not run (R repeats of their last result, M new)`: the calls the guard would have spared. */
function notRunText(notRun: number, saved: number): string {
  return notRun === 0 ? "0 not run" : `${notRun} not run (${plural(saved, "repeat")} of their last result, ${notRun - saved} new)`;
}

export function summaryLine(report: RunReport, p: Paint): string {
  const s = report.summary;
  const parts = [`${plural(s.calls, "call")}: ${s.ran} ran, ${notRunText(s.notRun, s.saved)}`];
  parts.push(s.firstWarning === null ? "no warning" : `first warning at call ${s.firstWarning}`);
  const first = s.refusals[0];
  if (first === undefined) parts.push("nothing refused");
  else {
    parts.push(p.refuse(`first refusal at call ${first.index} (${first.action}${first.detector === null ? "" : ` ${first.detector}`})`));
    parts.push(`${plural(s.refusals.length, "refusal")}: ${s.withheld} withheld new information, ${s.costless} costless`);
  }
  if (s.stoppedAt !== null) parts.push(p.refuse(`run stopped at call ${s.stoppedAt}`));
  if (s.notResent > 0) parts.push(notResentText(s.notResent, s.resultBytes));
  return `  summary: ${parts.join("; ")}`;
}

/** The total line; `badInputs` inputs were not read, so nothing of them is counted. */
export function totalLine(totals: ReplayTotals, p: Paint, badInputs = 0): string {
  const parts = [
    `${plural(totals.runs, "run")}, ${plural(totals.calls, "call")}`,
    `${totals.runsWarned} warned`,
    `${totals.runsRefused} refused (${totals.runsStopped} stopped)`,
    `${plural(totals.refusals, "refusal")}: ${totals.withheld} withheld new information, ${totals.costless} costless`,
    `${plural(totals.notRun, "call")} ${notRunText(totals.notRun, totals.saved).replace(/^\d+ /, "")}`,
  ];
  if (totals.notResent > 0) parts.push(notResentText(totals.notResent, totals.resultBytes));
  if (badInputs > 0) parts.push(`${plural(badInputs, "bad input")} not counted`);
  return p.bold(`total: ${parts.join("; ")}`);
}
