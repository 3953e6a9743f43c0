/**
 * A verdict as OpenClaw's `tool.loop` diagnostic event (OpenClaw 2026.9.6 emits one for each
 * loop detection of its own detector; its diagnostics-otel plugin turns it into the
 * `openclaw.tool.loop` counter and span). A gateway that switches to the guard emits the same
 * event from `onVerdict` or through the OpenClaw plugin, so its dashboards keep working. The
 * mapping reads only the verdict: OpenClaw's levels and actions from tables below; the detector
 * id as the core names it (OpenClaw's six detectors have the same ids; the guard's others keep
 * theirs); the dispatcher adds `ts`, `seq` and `trace`.
 */
import type { Verdict } from "../types.js";

/** OpenClaw's `DiagnosticToolLoopEvent`, as an emitter receives it (without `ts`, `seq`, `trace`). */
export interface OpenClawToolLoopEvent {
  type: "tool.loop";
  sessionId: string | undefined;
  sessionKey: string | undefined;
  toolName: string;
  level: "warning" | "critical";
  action: "warn" | "block";
  /** OpenClaw's ids where OpenClaw has the detector (the same as the core's), else the core's id. */
  detector: string;
  count: number;
  message: string;
  pairedToolName: string | undefined;
}

/** OpenClaw's level for each level of a verdict that intervenes (it has no circuit-break level). */
const LEVELS: Partial<Record<Verdict["level"], OpenClawToolLoopEvent["level"]>> = {
  warning: "warning",
  critical: "critical",
  circuit_break: "critical",
};

/** OpenClaw's action for each action of a verdict that intervenes (it ends no run itself). */
const ACTIONS: Partial<Record<Verdict["action"], OpenClawToolLoopEvent["action"]>> = {
  warn: "warn",
  block: "block",
  stop: "block",
};

/** Where the verdict happened, as OpenClaw names a session; both default to absent. */
export interface OpenClawSession {
  sessionKey?: string | undefined;
  sessionId?: string | undefined;
}

/**
 * The `tool.loop` event OpenClaw would emit for `verdict`, or `undefined` for a verdict that does
 * not intervene (`allow`, also under `policy: "shadow"`). `session` defaults to the verdict's
 * `runId` as the session key. Fields OpenClaw may leave absent are present and `undefined`, as in
 * OpenClaw's own events.
 */
export function toolLoopEvent(verdict: Verdict, session: OpenClawSession = { sessionKey: verdict.runId ?? undefined }): OpenClawToolLoopEvent | undefined {
  const level = LEVELS[verdict.level];
  const action = ACTIONS[verdict.action];
  if (level === undefined || action === undefined || verdict.detector === null) return undefined;
  return {
    type: "tool.loop",
    sessionId: session.sessionId,
    sessionKey: session.sessionKey,
    toolName: verdict.tool,
    level,
    action,
    detector: verdict.detector,
    count: verdict.count,
    message: verdict.message ?? "",
    pairedToolName: verdict.refusal?.observed.partnerTool,
  };
}
