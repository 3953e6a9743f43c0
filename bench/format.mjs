// Number and table formatting for bench/run.mjs. Sizes use binary units (1 KB = 1024 bytes).

export function duration(ns) {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

export function bytes(n) {
  if (Math.abs(n) >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (Math.abs(n) >= 1024) return `${(n / 1024).toFixed(2)} KiB`;
  return `${n} B`;
}

export const ratio = (x) => `${x.toFixed(2)}×`;

export const met = (ok) => (ok === undefined ? "n/a" : ok ? "yes" : "NO");

/** Prints rows (arrays of cells) under `header` as a Markdown table with padded columns. */
export function printTable(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const row of rows) console.log(line(row));
}
