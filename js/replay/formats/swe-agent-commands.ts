/**
 * SWE-agent's Agent-Computer Interface commands as its text-based trajectories write them (an
 * `action` string such as `open "f.py" 40`, `search_dir "x" src`, `str_replace_editor view f.py
 * --view_range 1 40`, or `edit 10:12` followed by the replacement lines and `end_of_edit`). The
 * command names and argument names are SWE-agent's own command definitions:
 * `config/commands/{defaults,search,edit_linting,cursors_*,submit,forfeit}.sh` and `filemap.py`
 * before 1.0, EnIGMA's `_debug`/`_connect`/`_decompile` commands (CTF demonstrations), and
 * `tools/{windowed,search,windowed_edit_linting,edit_anthropic,submit,forfeit,filemap,
 * image_tools}/config.yaml` since. Anything else the agent typed (including a command joined to
 * another by a shell operator, or followed by more lines) ran in bash.
 */

/** A command's arguments: positional names in signature order, and `--flag` → argument name. */
interface Signature {
  positional: readonly string[];
  flags?: Readonly<Record<string, string>>;
}

const BINARY_FLAGS = { "--function_name": "function_name" };

const COMMANDS: Readonly<Record<string, Signature>> = {
  open: { positional: ["path", "line_number"] },
  goto: { positional: ["line_number"] },
  scroll_up: { positional: [] },
  scroll_down: { positional: [] },
  create: { positional: ["filename"] },
  search_dir: { positional: ["search_term", "dir"] },
  search_file: { positional: ["search_term", "file"] },
  find_file: { positional: ["file_name", "dir"] },
  submit: { positional: ["flag"] },
  exit_forfeit: { positional: [] },
  filemap: { positional: ["file_path"] },
  set_cursors: { positional: ["start_line", "end_line"] },
  view_image: { positional: ["image_file"] },
  str_replace_editor: {
    positional: ["command", "path"],
    flags: { "--file_text": "file_text", "--old_str": "old_str", "--new_str": "new_str", "--insert_line": "insert_line", "--view_range": "view_range" },
  },
  decompile: { positional: ["binary_path"], flags: BINARY_FLAGS },
  disassemble: { positional: ["binary_path"], flags: BINARY_FLAGS },
  debug_start: { positional: ["binary", "args"] },
  debug_add_breakpoint: { positional: ["breakpoint"] },
  debug_step: { positional: ["number"] },
  debug_continue: { positional: [] },
  debug_exec: { positional: ["command"] },
  debug_stop: { positional: [] },
  connect_start: { positional: ["server_address", "port"] },
  connect_sendline: { positional: ["line"] },
  connect_exec: { positional: ["command"] },
  connect_stop: { positional: [] },
};

/** Arguments SWE-agent declares as integers; `view_range` is a list of them. */
const INTEGER_ARGUMENTS = new Set(["line_number", "start_line", "end_line", "insert_line"]);
const INTEGER_LIST = "view_range";
/** Unquoted words that join commands or redirect them: the action is a shell command line. */
const SHELL_OPERATORS = new Set(["&&", "||", "|", ";", "&", ">", ">>", "<", "2>&1"]);

/** The multi-line command and the line that ends its text. */
const EDIT = "edit";
const END_OF_EDIT = "end_of_edit";

/** Actions SWE-agent writes itself when it ends a run (cost, context, format limits): not calls. */
const EXIT_ACTIONS = new Set(["exit_cost", "exit_context", "exit_format", "exit_error", "exit_api"]);

/** A word of a command line, and whether any of it was quoted. */
interface Word {
  text: string;
  quoted: boolean;
}

/**
 * The words of one command as a POSIX shell splits them (quotes may span lines) and the text after
 * the first unquoted line break; undefined for an unclosed quote.
 */
function commandWords(text: string): { words: Word[]; rest: string } | undefined {
  const words: Word[] = [];
  let word: Word | undefined;
  let quote: "'" | '"' | undefined;
  const add = (c: string, quoted = false) => {
    word ??= { text: "", quoted: false };
    word.text += c;
    word.quoted ||= quoted;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else add(c, true);
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && i + 1 < text.length && '"\\$`'.includes(text[i + 1] as string)) add(text[++i] as string, true);
      else add(c, true);
    } else if (c === "'" || c === '"') {
      quote = c;
      add("", true);
    } else if (c === "\\" && i + 1 < text.length) {
      add(text[++i] as string, true);
    } else if (c === " " || c === "\t" || c === "\n") {
      if (word !== undefined) words.push(word);
      word = undefined;
      if (c === "\n") return { words, rest: text.slice(i + 1) };
    } else {
      add(c);
    }
  }
  if (quote !== undefined) return undefined;
  if (word !== undefined) words.push(word);
  return { words, rest: "" };
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

/** Named arguments from a command's words, or undefined when the words do not fit its signature. */
function signatureArgs(signature: Signature, words: string[]): Record<string, unknown> | undefined {
  const args: Record<string, unknown> = {};
  let position = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const flag = signature.flags?.[word];
    if (flag === INTEGER_LIST) {
      const range: number[] = [];
      while (i + 1 < words.length && /^-?\d+$/.test(words[i + 1] as string)) range.push(Number(words[++i]));
      if (range.length === 0) return undefined;
      args[flag] = range;
    } else if (flag !== undefined) {
      if (i + 1 >= words.length) return undefined;
      args[flag] = argumentValue(flag, words[++i] as string);
    } else {
      const name = signature.positional[position++];
      if (name === undefined) return undefined;
      args[name] = argumentValue(name, word);
    }
  }
  return args;
}

/**
 * A text-based SWE-agent action as a tool call: an ACI command is that tool with its named
 * arguments (the raw rest of the command as `{args}` when it does not fit the signature); anything
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
  const signature = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined;
  const bash = { tool: "bash", args: { command: text } };
  if (signature === undefined) return bash;
  const rest = text.trim().slice(name.length).trim();
  const parsed = commandWords(rest);
  if (parsed === undefined) return { tool: name, args: { args: rest } };
  // More lines after the command, or a shell operator: the action is a command line for bash.
  if (parsed.rest.trim() !== "" || parsed.words.some((w) => !w.quoted && SHELL_OPERATORS.has(w.text))) return bash;
  const args = signatureArgs(signature, parsed.words.map((w) => w.text));
  return { tool: name, args: args ?? { args: rest } };
}
