// Runs examples/cloudflare-worker in plain workerd (the pinned npm build) the way wrangler.jsonc
// deploys it: the Worker plus its SQLite-backed Durable Object class, with the object's storage on
// local disk (`durableObjectStorage = (localDisk = …)` on a writable disk service) in a directory
// that outlives the process, so the host can be killed and started again on the same data. The
// socket is on 127.0.0.1; `globalOutbound` is a network service that allows nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { packageModules } from "../runtimes/workerd.mjs";
import { binary, freePorts, pkgDir, root, startProcess, waitForHttp } from "../runtimes/support.mjs";
import { GUARD_TOKENS } from "./callers.mjs";
import { restartableServer } from "./restartable.mjs";

export const exampleDir = path.join(root, "examples", "cloudflare-worker");

/** examples/cloudflare-worker/wrangler.jsonc, parsed (comments allowed). */
export function wranglerConfig() {
  const text = fs.readFileSync(path.join(exampleDir, "wrangler.jsonc"), "utf8");
  const { config, error } = ts.parseConfigFileTextToJson("wrangler.jsonc", text);
  if (error !== undefined) throw new Error(`wrangler.jsonc: ${ts.flattenDiagnosticMessageText(error.messageText, "\n")}`);
  return config;
}

/** A capnp string literal. */
const quote = (text) => JSON.stringify(text);

/** The workerd config for the example: wrangler.jsonc's main module, date, bindings, classes and vars. */
function capnpConfig({ modules, port, diskDir, vars }) {
  const wrangler = wranglerConfig();
  const classes = wrangler.durable_objects.bindings;
  const sqlClasses = wrangler.migrations.flatMap((m) => m.new_sqlite_classes ?? []);
  for (const binding of classes) {
    if (!sqlClasses.includes(binding.class_name)) throw new Error(`wrangler.jsonc: ${binding.class_name} is not a SQLite-backed class`);
  }
  const bindings = classes.map((binding) => `(name = ${quote(binding.name)}, durableObjectNamespace = ${quote(binding.class_name)})`);
  for (const [name, value] of Object.entries({ ...wrangler.vars, ...vars })) {
    bindings.push(typeof value === "string" ? `(name = ${quote(name)}, text = ${quote(value)})` : `(name = ${quote(name)}, json = ${quote(JSON.stringify(value))})`);
  }
  const namespaces = classes.map((binding) => `(className = ${quote(binding.class_name)}, uniqueKey = "tool-loop-guard-${binding.class_name}", enableSql = true)`);
  const moduleList = modules.map((m) => `(name = ${quote(m.name)}, ${m.type ?? "esModule"} = embed ${quote(m.embed)})`);
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "offline", network = (allow = [])),
    (name = "do-disk", disk = (path = ${quote(diskDir)}, writable = true)),
    (name = "guard", worker = (
      modules = [
        ${moduleList.join(",\n        ")}
      ],
      compatibilityDate = ${quote(wrangler.compatibility_date)},
      bindings = [
        ${bindings.join(",\n        ")}
      ],
      durableObjectNamespaces = [
        ${namespaces.join(",\n        ")}
      ],
      durableObjectStorage = (localDisk = "do-disk"),
      globalOutbound = "offline"
    ))
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "guard")]
);
`;
}

/**
 * A workerd process serving the example on a free 127.0.0.1 port, with its objects' storage in a
 * fresh temporary directory. `vars` override wrangler.jsonc's (e.g. GUARD_CONFIG). Returns {url}
 * and restartableServer's {pid(), output(), start(), kill(), stop()}: killed, it starts again on
 * the same port and storage. GUARD_TOKENS is the test callers' unless `vars` sets it.
 */
export async function workerHost({ vars: overrides = {} } = {}) {
  // The secret `wrangler secret put GUARD_TOKENS` would set: the test callers (callers.mjs).
  const vars = { GUARD_TOKENS, ...overrides };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tlg-worker-host-"));
  const diskDir = path.join(dir, "do-storage");
  fs.mkdirSync(diskDir);
  const wrangler = wranglerConfig();
  const { modules: pkgModules } = packageModules(pkgDir, ["."]);
  const modules = [{ name: "worker.js", file: path.join(exampleDir, wrangler.main) }, ...pkgModules].map((m, i) => {
    if (m.text !== undefined) {
      const embed = `m${i}.js`;
      fs.writeFileSync(path.join(dir, embed), m.text);
      return { ...m, embed };
    }
    const embed = `m${i}-${path.basename(m.file)}`;
    fs.copyFileSync(m.file, path.join(dir, embed));
    return { ...m, embed };
  });
  const [port] = await freePorts(1);
  fs.writeFileSync(path.join(dir, "config.capnp"), capnpConfig({ modules, port, diskDir, vars }));
  const url = `http://127.0.0.1:${port}`;
  return restartableServer({
    dir,
    spawn: () => startProcess(binary("workerd"), ["serve", "config.capnp"], { cwd: dir }),
    ready: (proc) => waitForHttp(`${url}/`, proc),
    fields: { url },
  });
}
