/**
 * Baseline guard: the outcome digest of a result or error, designed the way the straightforward
 * plain-JavaScript guard of issue 6 hashes results ("sorted-key JSON.stringify + node:crypto
 * SHA-256"): a result is one SHA-256 over its kind and its whole sorted-key JSON without volatile
 * keys (a plain string result stands for one text part, as in docs/semantics.md). This is cheaper
 * than part-by-part hashing on small results (one hash instead of several) and dearer on large
 * text results (the text is JSON-escaped before it is hashed), which is where that design pays
 * its costs. The semantic profiles of docs/semantics.md stay: errors by name and message, the
 * exec/process profile, unchanged writes, missing-tool messages.
 */
import { createHash } from "node:crypto";
import { sha256Hex, stableStringify, VOLATILE_KEYS } from "./canonical.js";
import { isPollAction } from "./tools.js";

export interface OutcomeDigest {
  digest: string;
  isError: boolean;
  missingTool: boolean;
}

type JsonObject = Record<string, unknown>;

const MISSING_TOOL =
  /unknown tool|tool not found|\btool\s+\S+\s+(?:was\s+)?not found|\btool\s+\S+\s+is not available|\btool\s+\S+\s+does not exist/i;

const UNCHANGED_WRITE = sha256Hex("outcome/v1:unchanged");

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function textPart(text: string): string {
  return "t" + sha256Hex(text);
}

function jsonPart(value: unknown): string {
  return "j" + sha256Hex(stableStringify(value, VOLATILE_KEYS));
}

function combine(kind: "r" | "e", parts: string[]): string {
  const hash = createHash("sha256").update("outcome/v1:" + kind);
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

function textOf(item: unknown): string | undefined {
  return isObject(item) && item.type === "text" && typeof item.text === "string" ? item.text : undefined;
}

function digestError(error: unknown): OutcomeDigest {
  let message: string | undefined;
  let parts: string[];
  if (typeof error === "string") {
    message = error;
    parts = [textPart(""), textPart(error)];
  } else if (isObject(error) && typeof error.message === "string") {
    message = error.message;
    parts = [textPart(typeof error.name === "string" ? error.name : ""), textPart(message)];
  } else if (isObject(error)) {
    const { stack: _stack, ...withoutStack } = error;
    parts = [jsonPart(withoutStack)];
  } else {
    parts = [jsonPart(error)];
  }
  return { digest: combine("e", parts), isError: true, missingTool: message !== undefined && MISSING_TOOL.test(message) };
}

/** `exec` and `process` poll/log: status, exit code, signal, timeout and output (or the running tail). */
function execParts(details: JsonObject, texts: string[]): string[] {
  const first = (...keys: string[]) => keys.map((key) => details[key]).find((value) => value !== undefined);
  const state = {
    status: details.status,
    exitCode: first("exitCode", "code"),
    signal: first("exitSignal", "signal"),
    timedOut: details.timedOut,
  };
  const parts = [jsonPart(state)];
  if (details.status === "running" && typeof details.tail === "string") parts.push(textPart(details.tail));
  else if (texts.length > 0) parts.push(...texts.map(textPart));
  else if (typeof details.aggregated === "string") parts.push(textPart(details.aggregated));
  return parts;
}

function digestResult(tool: string, args: unknown, result: unknown): OutcomeDigest {
  if (typeof result === "string") result = { content: [{ type: "text", text: result }] };
  if (!isObject(result)) return { digest: sha256Hex("r" + stableStringify(result, VOLATILE_KEYS)), isError: false, missingTool: false };
  const details = isObject(result.details) ? result.details : undefined;
  const isError = result.isError === true;
  const kind = isError ? "e" : "r";
  if (tool === "write" && details?.changed === false) return { digest: UNCHANGED_WRITE, isError: false, missingTool: false };
  const content: unknown[] = Array.isArray(result.content) ? result.content : [];
  const texts = content.map(textOf).filter((text): text is string => text !== undefined);
  if (details !== undefined && (tool === "exec" || (tool === "process" && isPollAction(args)))) {
    return { digest: combine(kind, execParts(details, texts)), isError, missingTool: false };
  }
  const { isError: _isError, _meta: _meta, ...rest } = result;
  const digest = sha256Hex((Array.isArray(result.content) ? kind : "r") + stableStringify(rest, VOLATILE_KEYS));
  return { digest, isError: isError && Array.isArray(result.content), missingTool: isError && texts.some((text) => MISSING_TOOL.test(text)) };
}

/** The digest of `tool(args)`'s outcome: `error` when the tool threw, else `result`. */
export function digestOutcome(tool: string, args: unknown, result: unknown, error: unknown): OutcomeDigest {
  if (error !== undefined && error !== null) return digestError(error);
  return digestResult(tool, args, result ?? null);
}
