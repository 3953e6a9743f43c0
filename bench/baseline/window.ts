/**
 * Baseline guard: one run's bounded window of call records (an array trimmed to historySize) and
 * the per-record counters of docs/semantics.md ("The window"): sameOutcomeRun, noProgress, and the
 * run's trailing vetoes.
 */
import type { OutcomeDigest } from "./outcome.js";
import type { ToolKind } from "./tools.js";

export type RecordState = "pending" | "done" | "vetoed";

/** The fingerprint of a call and what the detectors need to know about it. */
export interface Proposal {
  tool: string;
  argsDigest: string;
  /** tool + args digest: records with equal keys are the same call. */
  key: string;
  kind: ToolKind;
  at: number;
}

export interface CallRecord extends Proposal {
  callId: string | undefined;
  state: RecordState;
  outcome: string | null;
  isError: boolean;
  missingTool: boolean;
  sameOutcomeRun: number;
  noProgress: number;
  /** The detector this call was warned about at check, if any. */
  warned: string | null;
}

export class Run {
  records: CallRecord[] = [];
  trailingVetoes = 0;

  constructor(
    readonly id: string | null,
    readonly historySize: number,
  ) {}

  /** Appends a record for `proposal` in `state` (pending or vetoed), dropping the oldest beyond historySize. */
  append(proposal: Proposal, callId: string | undefined, state: RecordState): CallRecord {
    const record: CallRecord = {
      tool: proposal.tool,
      argsDigest: proposal.argsDigest,
      key: proposal.key,
      kind: proposal.kind,
      at: proposal.at,
      callId,
      state,
      outcome: null,
      isError: false,
      missingTool: false,
      sameOutcomeRun: 0,
      noProgress: 0,
      warned: null,
    };
    this.records.push(record);
    if (this.records.length > this.historySize) this.records.shift();
    if (state === "vetoed") {
      record.noProgress = (this.#previous(record, (r) => r.state !== "pending")?.noProgress ?? 0) + 1;
      this.trailingVetoes += 1;
    }
    return record;
  }

  /** The pending record with this callId. */
  pendingById(callId: string): CallRecord | undefined {
    return this.records.findLast((r) => r.state === "pending" && r.callId === callId);
  }

  /** The newest pending record of the call `key`. */
  newestPending(key: string): CallRecord | undefined {
    return this.records.findLast((r) => r.state === "pending" && r.key === key);
  }

  /** Attaches an outcome to a pending record and updates its counters. */
  complete(record: CallRecord, outcome: OutcomeDigest): void {
    const lastDone = this.#previous(record, (r) => r.state === "done");
    const previous = this.#previous(record, (r) => r.state !== "pending");
    record.state = "done";
    record.outcome = outcome.digest;
    record.isError = outcome.isError;
    record.missingTool = outcome.missingTool;
    record.sameOutcomeRun = lastDone?.outcome === outcome.digest ? lastDone.sameOutcomeRun + 1 : 1;
    record.noProgress = record.sameOutcomeRun > 1 ? (previous?.noProgress ?? 0) + 1 : 1;
    this.trailingVetoes = 0;
  }

  /** The newest record of the same call before `record` matching `test`. */
  #previous(record: CallRecord, test: (r: CallRecord) => boolean): CallRecord | undefined {
    for (let i = this.records.indexOf(record) - 1; i >= 0; i--) {
      const r = this.records[i]!;
      if (r.key === record.key && test(r)) return r;
    }
    return undefined;
  }
}
