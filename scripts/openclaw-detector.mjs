// OpenClaw's own loop detector behind this package's LoopGuard interface, for the development
// checks that compare against the released OpenClaw (scripts/openclaw-reference.mjs replays the
// conformance scenarios, scripts/openclaw-speed.mjs times real records). The package is not a
// dependency of this project: `loadOpenClawDetector(dir)` takes the directory of an unpacked
// openclaw package (see docs/openclaw.md). Its detector module (dist/tool-loop-detection-*.mjs)
// supplies detection, call recording and outcome recording; the thin admission step around it
// (warning buckets, the veto record of a refused call, a second critical stopping the run) is
// replayed here as OpenClaw's before-tool-call wrapper and agent loop do it. A run is OpenClaw's
// run: its warning buckets are keyed by its run id and its critical-loop flag lasts one prompt, so
// `endRun` forgets all three (window, buckets, flag) and a run id used again starts afresh.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * `{ReferenceGuard, LoopGuardError, version}` of the openclaw package unpacked in `packageDir`:
 * a LoopGuard-like class (check, record, exportRun, importRun, endRun, free) over the detector.
 */
export async function loadOpenClawDetector(packageDir) {
  const dist = join(packageDir, "dist");
  const moduleFile = readdirSync(dist).find((f) => /^tool-loop-detection-[\w-]+\.mjs$/.test(f));
  if (!moduleFile) throw new Error(`no dist/tool-loop-detection-*.mjs in ${packageDir}`);
  const detector = await import(pathToFileURL(join(dist, moduleFile)).href);
  // The chunk's exports are minified: pick them by what they do.
  const pick = (name) => Object.values(detector).find((f) => typeof f === "function" && f.name === name);
  const version = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).version;
  return { ...referenceGuard(pick("detectToolCallLoop"), pick("recordToolCall"), pick("recordToolCallOutcome")), version };
}

/** The reference guard over the detector's three functions. */
function referenceGuard(detectToolCallLoop, recordToolCall, recordToolCallOutcome) {
  /** OpenClaw's normalizeToolPolicyName: lower case and its three aliases. */
  const ALIASES = new Map([["bash", "exec"], ["apply-patch", "apply_patch"], ["cron", "automations"]]);
  const toolName = (tool) => {
    const lower = String(tool ?? "").trim().toLowerCase();
    return ALIASES.get(lower) ?? lower;
  };
  /** The before-tool-call wrapper's warning bucket size and the agent loop's enabled config. */
  const BUCKET = 10;
  const ENABLED = { enabled: true };

  class LoopGuardError extends Error {}

  /** OpenClaw's detector behind this package's LoopGuard interface, for the shared runner. */
  class ReferenceGuard {
    constructor() {
      this.state = {};
      /** Per run ("" for the default run): warning key -> highest bucket warned about. */
      this.buckets = new Map();
      /** Runs that have had a critical verdict already: the next one stops them. */
      this.refused = new Set();
    }

    verdict(call, fields) {
      const base = { action: "allow", level: "ok", detector: null, count: 0, tool: call.tool, runId: call.runId ?? null };
      return { ...base, ...fields };
    }

    check(call) {
      const tool = toolName(call.tool);
      const params = call.args ?? {};
      const scope = call.runId ? { runId: call.runId } : undefined;
      const found = detectToolCallLoop(this.state, tool, params, ENABLED, scope);
      if (found.stuck && found.level === "critical") {
        const run = call.runId ?? "";
        const global = found.detector === "global_circuit_breaker";
        const action = global || this.refused.has(run) ? "stop" : "block";
        this.refused.add(run);
        recordToolCallOutcome(this.state, {
          toolName: tool,
          toolParams: params,
          toolCallId: call.callId,
          result: { content: [{ type: "text", text: found.message }], details: { status: "blocked", deniedReason: "tool-loop" } },
          runId: call.runId,
        });
        const level = global ? "circuit_break" : "critical";
        return this.verdict(call, { action, level, detector: found.detector, count: found.count, refusal: { mode: found.detector } });
      }
      recordToolCall(this.state, tool, params, call.callId, ENABLED, scope);
      if (!found.stuck) return this.verdict(call, {});
      const key = found.warningKey ?? `${found.detector}:${tool}`;
      const run = call.runId ?? "";
      if (!this.buckets.has(run)) this.buckets.set(run, new Map());
      const warned = this.buckets.get(run);
      const bucket = Math.floor(found.count / BUCKET);
      if (bucket <= (warned.get(key) ?? 0)) return this.verdict(call, {});
      warned.set(key, bucket);
      return this.verdict(call, { action: "warn", level: "warning", detector: found.detector, count: found.count, hint: found.message });
    }

    record(outcome) {
      const error = outcome.error;
      recordToolCallOutcome(this.state, {
        toolName: toolName(outcome.tool),
        toolParams: outcome.args ?? {},
        toolCallId: outcome.callId,
        result: outcome.result,
        error: error && typeof error === "object" && typeof error.message === "string" ? new Error(error.message) : error ?? undefined,
        runId: outcome.runId,
      });
      return this.verdict(outcome, {});
    }

    compacted() {
      throw new Error("the post-compaction guard is not part of the detector module");
    }

    /** A round trip through a snapshot must be transparent: the reference keeps a copy of the run. */
    exportRun(runId) {
      const mine = (r) => (r.runId ?? null) === (runId ?? null);
      const run = runId ?? "";
      return {
        runId: runId ?? null,
        history: structuredClone((this.state.toolCallHistory ?? []).filter(mine)),
        buckets: new Map(this.buckets.get(run)),
        refused: this.refused.has(run),
      };
    }

    importRun(snapshot) {
      this.state.toolCallHistory = [...(this.state.toolCallHistory ?? []), ...snapshot.history];
      const run = snapshot.runId ?? "";
      this.buckets.set(run, new Map(snapshot.buckets));
      if (snapshot.refused) this.refused.add(run);
      return snapshot.runId;
    }

    /** Forgets the run: its records, its warning buckets and its critical-loop flag. */
    endRun(runId) {
      this.state.toolCallHistory = (this.state.toolCallHistory ?? []).filter((r) => (r.runId ?? null) !== (runId ?? null));
      this.buckets.delete(runId ?? "");
      this.refused.delete(runId ?? "");
    }

    free() {}
  }

  return { ReferenceGuard, LoopGuardError };
}
