/**
 * StepQueue: one run's steps in the order the agent made them, each call waiting for its outcome
 * (formats write results after their calls, sometimes several calls before the first result).
 */
import type { CallStep, EventStep, Step } from "./types.js";

/** What a call returned or threw. */
export type Outcome = { result: unknown } | { error: unknown };

interface Item {
  step: Step;
  done: boolean;
}

export class StepQueue {
  #items: Item[] = [];
  #waiting = new Map<string, Item>();

  /** A call whose outcome `key` will bring (without a key it has no outcome to wait for). */
  call(step: CallStep, key?: string): void {
    const item = { step, done: key === undefined };
    this.#items.push(item);
    if (key !== undefined) this.#waiting.set(key, item);
  }

  /** A call that came with its outcome. */
  done(step: CallStep): void {
    this.#items.push({ step, done: true });
  }

  event(step: EventStep): void {
    this.#items.push({ step, done: true });
  }

  /** Attaches the outcome of the call waiting on `key`; false when no call waits on it. */
  outcome(key: string, outcome: Outcome, at?: number): boolean {
    const item = this.#waiting.get(key);
    if (item === undefined) return false;
    this.#waiting.delete(key);
    const step = item.step as CallStep;
    Object.assign(step, outcome);
    if (step.at === undefined && at !== undefined) step.at = at;
    item.done = true;
    return true;
  }

  /** True when a call waits on `key`. */
  waits(key: string): boolean {
    return this.#waiting.has(key);
  }

  /** The steps ready in order: those before the first call still waiting for its outcome. */
  ready(): Step[] {
    let n = 0;
    while (n < this.#items.length && (this.#items[n] as Item).done) n++;
    return this.#items.splice(0, n).map((item) => item.step);
  }

  /** Stops waiting: calls without an outcome by now keep none, and every step is ready. */
  settle(): void {
    for (const item of this.#waiting.values()) item.done = true;
    this.#waiting.clear();
  }

  /** Every queued step; calls still waiting keep no outcome (the trajectory has none for them). */
  flush(): Step[] {
    this.#waiting.clear();
    return this.#items.splice(0).map((item) => item.step);
  }
}
