// Serves the browser demo on 127.0.0.1: `node examples/browser-demo/serve.mjs` (PORT=0 picks a free
// port), then open the printed URL. Static files only, no network beyond this server:
//   /                           index.html, demo.js, demo.css (this directory)
//   /traces/<file>.json         the scripted agents (examples/traces)
//   /vendor/tool-loop-guard/…   the installed package (here: pkg/, linked by `npm run build`)
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.dirname(createRequire(import.meta.url).resolve("tool-loop-guard/package.json"));
const ROOTS = [
  ["/vendor/tool-loop-guard/", fs.realpathSync(packageDir)],
  ["/traces/", path.join(here, "..", "traces")],
  ["/", here],
];
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".png": "image/png",
};

/** The file a URL path names, or null: only files below the roots, with a known type. */
function fileFor(pathname) {
  const wanted = pathname === "/" ? "/index.html" : pathname;
  for (const [prefix, dir] of ROOTS) {
    if (!wanted.startsWith(prefix)) continue;
    const file = path.resolve(dir, `.${path.posix.normalize(`/${wanted.slice(prefix.length)}`)}`);
    const inside = file.startsWith(dir + path.sep);
    return inside && TYPES[path.extname(file)] !== undefined && fs.statSync(file, { throwIfNoEntry: false })?.isFile() ? file : null;
  }
  return null;
}

const server = http.createServer((request, response) => {
  let file = null;
  try {
    file = fileFor(decodeURIComponent(new URL(request.url, "http://demo").pathname));
  } catch {
    // a malformed path: not found
  }
  if ((request.method !== "GET" && request.method !== "HEAD") || file === null) {
    response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
    return;
  }
  response.writeHead(200, { "content-type": TYPES[path.extname(file)], "cache-control": "no-store" });
  if (request.method === "HEAD") response.end();
  else fs.createReadStream(file).pipe(response);
});

server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? "127.0.0.1", () => {
  const { address, port } = server.address();
  console.log(`serving http://${address}:${port}/`);
});
for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => server.close(() => process.exit(0)));
