/**
 * SWE-agent's Agent-Computer Interface commands as its text-based trajectories write them (an
 * `action` string such as `open "f.py" 40`, `search_dir "x" src`, or `edit 10:12` followed by the
 * replacement lines and `end_of_edit`). The command names and argument names are SWE-agent's own
 * command definitions: `config/commands/{defaults,search,edit_linting,cursors_*,submit,forfeit}.sh`
 * and `filemap.py` before 1.0, `tools/{windowed,search,windowed_edit_linting,submit,forfeit,
 * filemap,image_tools}/config.yaml` since. Anything else the agent typed ran in bash.
 */

/** Single-line commands: name → argument names in signature order. */
const COMMANDS: Readonly<Record<string, readonly string[]>> = {
  open: ["path", "line_number"],
  goto: ["line_number"],
  scroll_up: [],
  scroll_down: [],
  create: ["filename"],
  search_dir: ["search_term", "dir"],
  search_file: ["search_term", "file"],
  find_file: ["file_name", "dir"],
  submit: [],
  exit_forfeit: [],
  filemap: ["file_path"],
  set_cursors: ["start_line", "end_line"],
  view_image: ["image_file"],
};

/** Arguments SWE-agent declares as integers. */
const INTEGER_ARGUMENTS = new Set(["line_number", "start_line", "end_line"]);

/** The multi-line command and the line that ends its text. */
const EDIT = "edit";
const END_OF_EDIT = "end_of_edit";

/** Actions SWE-agent writes itself when it ends a run (cost, context, format limits): not calls. */
const EXIT_ACTIONS = new Set(["exit_cost", "exit_context", "exit_format", "exit_error", "exit_api"]);

/** The words of a command line as a POSIX shell splits them; undefined for an unclosed quote. */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= "";
    } else if (c === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[++i];
    } else if (c === " " || c === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (quote !== undefined) return undefined;
  if (word !== undefined) words.push(word);
  return words;
}

function argumentValue(name: string, word: string): string | number {
  return INTEGER_ARGUMENTS.has(name) && /^-?\d+$/.test(word) ? Number(word) : word;
}

/** `edit <start>:<end>` (or bare `edit`, the cursors variant) and its replacement text. */
function editArgs(firstLine: string, body: string): Record<string, unknown> | undefined {
  const range = /^edit\s+(\d+)\s*:\s*(\d+)\s*$/.exec(firstLine);
  if (range === null && firstLine !== EDIT) return undefined;
  const lines = body.split("\n");
  const end = lines.lastIndexOf(END_OF_EDIT);
  const text = (end === -1 ? lines : lines.slice(0, end)).join("\n");
  return range === null ? { replacement_text: text } : { start_line: Number(range[1]), end_line: Number(range[2]), replacement_text: text };
}

/**
 * A text-based SWE-agent action as a tool call: an ACI command is that tool with its named
 * arguments (the raw rest of the line as `{args}` when it does not fit the signature); anything
 * else is `bash` with `{command}`. Undefined for an empty action and SWE-agent's own exit actions.
 */
export function aciCall(action: string): { tool: string; args: Record<string, unknown> } | undefined {
  const text = action.replace(/\s+$/, "");
  if (text.trim() === "" || EXIT_ACTIONS.has(text.trim())) return undefined;
  const newline = text.indexOf("\n");
  const firstLine = (newline === -1 ? text : text.slice(0, newline)).trim();
  const name = firstLine.split(/\s/, 1)[0] as string;
  if (name === EDIT) {
    const args = editArgs(firstLine, newline === -1 ? "" : text.slice(newline + 1));
    return { tool: EDIT, args: args ?? { args: text.slice(EDIT.length).trim() } };
  }
  const names = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (names === undefined || newline !== -1) return { tool: "bash", args: { command: text } };
  const rest = firstLine.slice(name.length).trim();
  const words = shellWords(rest);
  if (words === undefined || words.length > names.length) return { tool: name, args: { args: rest } };
  return { tool: name, args: Object.fromEntries(words.map((word, i) => [names[i] as string, argumentValue(names[i] as string, word)])) };
}
