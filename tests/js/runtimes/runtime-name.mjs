// The name and version of the JS runtime executing this module (Deno, Bun or Node), as the
// runtime CLIs of this folder report it.
import process from "node:process";

export function runtimeName() {
  if (typeof globalThis.Deno !== "undefined") return `deno ${globalThis.Deno.version.deno}`;
  if (typeof globalThis.Bun !== "undefined") return `bun ${globalThis.Bun.version}`;
  return `node ${process.versions.node}`;
}
