// Runs Workers in workerd (npm `workerd`, a pinned build) from a generated capnp config: every
// Worker listens on its own 127.0.0.1 port and has `globalOutbound` = a network service that
// allows nothing, so it cannot reach any address, not even 127.0.0.1.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { binary, freePorts, manifestOf, moduleGraph, resolveExport, startProcess, waitForHttp } from "./support.mjs";

/** No later than the workerd build's own date (1.20261023.1). */
export const COMPATIBILITY_DATE = "2026-10-23";
/** The conditions wrangler resolves packages with for a Worker. */
export const WORKERD_CONDITIONS = ["workerd", "worker", "browser", "import", "default"];

/**
 * The package's modules as a Worker sees them when it imports `name` and `name/inline`, etc.:
 * each subpath is resolved through the exports map with the workerd conditions, the files of its
 * module graph become modules named `node_modules/<name>/<file>`, and a module named by the bare
 * specifier re-exports the entry (workerd looks a bare specifier up as a module name, relative to
 * the importing module's directory: keep the Worker's main module at the root).
 * Returns {modules, entries: {subpath: target}}.
 */
export function packageModules(pkgDir, subpaths = ["."]) {
  const manifest = manifestOf(pkgDir);
  const modules = new Map();
  const entries = {};
  for (const subpath of subpaths) {
    const target = resolveExport(manifest, subpath, WORKERD_CONDITIONS);
    entries[subpath] = target;
    const { files, external } = moduleGraph(pkgDir, target);
    if (external.length > 0) throw new Error(`${target} imports non-relative modules: ${external.join(", ")}`);
    for (const rel of files) {
      const name = `node_modules/${manifest.name}/${rel}`;
      modules.set(name, { name, file: path.join(pkgDir, rel), type: rel.endsWith(".wasm") ? "wasm" : "esModule" });
    }
    const alias = subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
    const relative = path.posix.relative(path.posix.dirname(`/${alias}`), `/node_modules/${manifest.name}/${path.posix.normalize(target)}`);
    modules.set(alias, { name: alias, text: `export * from './${relative}';` });
  }
  return { modules: [...modules.values()], entries };
}

/**
 * Starts one workerd process serving `workers` = [{modules: [{name, file|text, type}]}] (the first
 * module is the main one). Returns {urls, output(), stop()}; every URL answers before it returns.
 */
export async function startWorkerd(workers) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tlg-workerd-"));
  const ports = await freePorts(workers.length);
  const services = ['(name = "offline", network = (allow = []))'];
  const sockets = [];
  let copied = 0;
  workers.forEach((worker, w) => {
    const modules = worker.modules.map((m) => {
      const kind = m.type ?? "esModule";
      if (m.text !== undefined) return `(name = ${JSON.stringify(m.name)}, ${kind} = ${JSON.stringify(m.text)})`;
      const local = `m${copied++}-${path.basename(m.file)}`;
      fs.copyFileSync(m.file, path.join(dir, local));
      return `(name = ${JSON.stringify(m.name)}, ${kind} = embed ${JSON.stringify(local)})`;
    });
    services.push(
      `(name = "w${w}", worker = (\n      modules = [\n        ${modules.join(",\n        ")}\n      ],\n      compatibilityDate = "${COMPATIBILITY_DATE}",\n      globalOutbound = "offline"\n    ))`,
    );
    sockets.push(`(name = "s${w}", address = "127.0.0.1:${ports[w]}", http = (), service = "w${w}")`);
  });
  const config = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    ${services.join(",\n    ")}
  ],
  sockets = [
    ${sockets.join(",\n    ")}
  ]
);
`;
  fs.writeFileSync(path.join(dir, "config.capnp"), config);
  const proc = startProcess(binary("workerd"), ["serve", "config.capnp"], { cwd: dir });
  const urls = ports.map((p) => `http://127.0.0.1:${p}`);
  try {
    for (const url of urls) await waitForHttp(`${url}/`, proc);
  } catch (error) {
    await proc.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    urls,
    output: proc.output,
    async stop() {
      await proc.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
