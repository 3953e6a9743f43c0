/**
 * `tool-loop-guard/replay`: read real agent trajectories (thirteen formats, detected from content) and
 * replay them through a LoopGuard the way a gateway would, with a per-call timeline and per-run
 * summaries that tell refusals that withheld information from costless ones. Runtime-neutral: no
 * Node built-ins, no dependencies; bring a LoopGuard from any entry of the package.
 */
export { runLine, stepLine } from "./convert.js";
export { shortArgs, verdictText } from "./display.js";
export {
  addToTotals,
  emptyTotals,
  PACE_MS,
  type Refusal,
  type RefusalCost,
  type ReplayGuard,
  type ReplayOptions,
  type ReplayTotals,
  replayTrajectory,
  type RunReport,
  RunReplay,
  type RunSummary,
  type TimelineEvent,
  type TimelineRow,
  type VerdictBrief,
} from "./engine.js";
export { TrajectoryError } from "./errors.js";
export { type LineReader } from "./lines.js";
export {
  detectDocumentFormat,
  detectFormat,
  detectLineFormat,
  detectTextFormat,
  documentFormatOf,
  type DocumentFormat,
  FORMATS,
  isFormat,
  isLineFormat,
  isTextFormat,
  type LineFormat,
  lineReader,
  readDocument,
  readTrajectories,
  readWhole,
  sniffFormat,
  startsArray,
  type TextFormat,
} from "./read.js";
export { type GridAxis, type SweepRow, type SweepSetting, sweepRow, sweepSettings, tallyRun, withValueAt } from "./sweep.js";
export type { CallStep, EventStep, FormatId, RunHeader, RunMeta, RunStep, Source, Step, Trajectory } from "./types.js";
