/**
 * A progress bar on stderr for large inputs: drawn only when stderr is a terminal and the inputs
 * add up to at least LARGE_INPUT_BYTES, redrawn at most every REDRAW_MS, erased when done, so
 * pipes, logs and small replays never see it.
 */
export const LARGE_INPUT_BYTES = 8 * 1024 * 1024;
const REDRAW_MS = 100;
const BAR_WIDTH = 30;

export interface Progress {
  /** `bytes` more of the inputs were read. */
  advance(bytes: number): void;
  /** Names the input being read. */
  input(name: string): void;
  /** Erases the bar (the next `input` draws it again). */
  done(): void;
}

const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

export function progressBar(totalBytes: number | undefined, stream: NodeJS.WriteStream = process.stderr): Progress {
  const shown = stream.isTTY === true && totalBytes !== undefined && totalBytes >= LARGE_INPUT_BYTES;
  if (!shown) return { advance() {}, input() {}, done() {} };
  let read = 0;
  let name = "";
  let drawn = 0;
  const draw = () => {
    const fraction = Math.min(1, read / totalBytes);
    const filled = Math.round(fraction * BAR_WIDTH);
    const bar = `${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}`;
    stream.write(`\r[${bar}] ${(fraction * 100).toFixed(0).padStart(3)} % ${mb(read)}/${mb(totalBytes)} MB ${name}\u001b[K`);
    drawn = Date.now();
  };
  return {
    advance(bytes) {
      read += bytes;
      if (Date.now() - drawn >= REDRAW_MS) draw();
    },
    input(next) {
      name = next;
      draw();
    },
    done() {
      if (drawn === 0) return;
      stream.write("\r\u001b[K");
      drawn = 0;
    },
  };
}
