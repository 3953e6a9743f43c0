// Rewrites the `target_features` custom section of a linked .wasm, for scripts/build.mjs.
//
// Why: Rust's prebuilt std for wasm32 is compiled with `multivalue`, so the linker lists it among
// the features the module uses, and wasm-bindgen then turns every export that returns a string, a
// byte vector or a Result into a function with several results. V8 11 (Node 20) compiles a
// JS-to-wasm wrapper for each such signature while compiling the module: about 2.5 ms of the
// 4.5 ms that the first `new WebAssembly.Module` took. Without the entry, wasm-bindgen keeps the
// return-pointer convention, whose signatures V8's generic wrapper serves without compiling
// anything. The entry is only a declaration (the Rust ABI never returns several values), so
// dropping it changes no code.
import fs from "node:fs";
import { customName, leb, readLeb, sections } from "./wasm-binary.mjs";

/** The section's entries: [prefix byte ("+", "-", "="), feature name]. */
function readFeatures(bytes, at) {
  const [count, first] = readLeb(bytes, at);
  const features = [];
  let pos = first;
  for (let i = 0; i < count; i++) {
    const prefix = bytes[pos];
    const [length, start] = readLeb(bytes, pos + 1);
    features.push([prefix, bytes.subarray(start, start + length).toString("utf8")]);
    pos = start + length;
  }
  return features;
}

function featuresSection(features) {
  const name = Buffer.from("target_features");
  const body = [...leb(name.length), ...name, ...leb(features.length)];
  for (const [prefix, feature] of features) body.push(prefix, ...leb(Buffer.byteLength(feature)), ...Buffer.from(feature));
  return Buffer.from([0, ...leb(body.length), ...body]);
}

/**
 * Removes `feature` from the `target_features` section of the .wasm at `file`, in place. Returns
 * whether it was listed.
 */
export function dropTargetFeature(file, feature) {
  const bytes = fs.readFileSync(file);
  let dropped = false;
  const parts = [bytes.subarray(0, 8)];
  for (const section of sections(bytes)) {
    if (customName(bytes, section) !== "target_features") {
      parts.push(bytes.subarray(section.start, section.end));
      continue;
    }
    const nameLength = readLeb(bytes, section.body)[0];
    const features = readFeatures(bytes, readLeb(bytes, section.body)[1] + nameLength);
    const kept = features.filter(([, name]) => name !== feature);
    dropped ||= kept.length < features.length;
    parts.push(featuresSection(kept));
  }
  fs.writeFileSync(file, Buffer.concat(parts));
  return dropped;
}
