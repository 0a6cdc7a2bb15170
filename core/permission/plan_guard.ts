/**
 * What plan mode lets through the permission gate. While the user has plan mode on, the agent
 * researches and writes a plan: readers run, writers do not — the built-in file writers, the
 * memory writers, MCP tools that are not read-only (direct or through `use_capability`) and
 * every shell command this module cannot show to be read-only. The check only ever refuses:
 * what it lets through still goes through the rules, the preset and the sandbox.
 *
 * The shell check is an allow list over the analyser's view of the command: a plain list of
 * simple commands (pipes and `&&` are fine), each a known reader, with no substitution,
 * nested shell, wrapper, variable assignment or write redirection anywhere.
 *
 * @module
 */
import type { PolicyCall } from "./policy.ts";
import { analyzeShell, HIDING_FEATURES, type SimpleCommand } from "./shell_parse.ts";

/** Built-in tools that change files or what is remembered, whatever their call declares. */
const WRITER_TOOLS: ReadonlySet<string> = new Set([
  "write_file",
  "edit_file",
  "multi_edit",
  "move_file",
  "remember",
  "forget",
]);

/** Programs that only read (with the option limits in {@linkcode optionRefusal}). */
const READERS: ReadonlySet<string> = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "pwd",
  "echo",
  "printf",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "find",
  "file",
  "stat",
  "du",
  "df",
  "tree",
  "which",
  "whoami",
  "id",
  "uname",
  "date",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "cut",
  "sort",
  "uniq",
  "tr",
  "diff",
  "cmp",
  "comm",
  "nl",
  "tac",
  "rev",
  "fold",
  "column",
  "od",
  "hexdump",
  "strings",
  "md5sum",
  "sha1sum",
  "sha256sum",
  "jq",
  "seq",
  "printenv",
  "true",
  "false",
  "test",
  "[",
  "cd",
  "sed",
  "git",
]);

/** git subcommands that only read the repository. */
const GIT_READERS: ReadonlySet<string> = new Set([
  "status",
  "log",
  "diff",
  "show",
  "blame",
  "grep",
  "ls-files",
  "ls-tree",
  "rev-parse",
  "describe",
  "shortlog",
  "cat-file",
  "branch",
]);

/** `git branch` options that only list. */
const GIT_BRANCH_LISTING: ReadonlySet<string> = new Set([
  "-a",
  "-r",
  "-v",
  "-vv",
  "--all",
  "--remotes",
  "--verbose",
  "--list",
  "--show-current",
  "--no-color",
]);

/** Options of readers that write a file or run a program, by program. */
const WRITING_OPTIONS: Readonly<Record<string, RegExp>> = {
  find: /^-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/,
  rg: /^--pre(=|$)/,
  sort: /^(-o|--output(=|$)|-[a-zA-Z]*o)/,
  tree: /^-o$/,
  date: /^(-s|--set(=|$))/,
  git: /^(--output(=|$)|--ext-diff$|-o$)/,
};

/** A `sed` script that only prints or deletes line ranges: `1,20p`, `$p`, `5d`. */
const SED_PRINT = /^\s*(\d+|\$)?(\s*,\s*(\d+|\$))?\s*[pd=]?\s*$/;

function programName(cmd: SimpleCommand): string | undefined {
  const first = cmd.words[0];
  if (!first?.literal) return undefined;
  return first.text.slice(first.text.lastIndexOf("/") + 1);
}

/** Why one simple command is not a plain reader, or undefined when it is one. */
function commandRefusal(cmd: SimpleCommand): string | undefined {
  const name = programName(cmd);
  if (name === undefined) return "its program is computed at run time";
  if (!READERS.has(name)) return `${name} is not a read-only command`;
  if (cmd.assignments.length) return "it sets environment variables for a command";
  for (const r of cmd.redirects) {
    const dup = (r.op === ">&" || r.op === "<&") && /^([0-9]+-?|-)$/.test(r.target?.text ?? "");
    const input = r.op === "<" || r.op === "<<<";
    const devNull = r.target?.literal && r.target.text === "/dev/null";
    if (!dup && !input && !devNull) return "it redirects output to a file";
  }
  const args = cmd.words.slice(1).map((w) => w.text);
  const writing = WRITING_OPTIONS[name];
  const bad = writing && args.find((a) => writing.test(a));
  if (bad) return `${name} ${bad} writes or runs something`;
  if (name === "uniq" && args.filter((a) => !a.startsWith("-")).length > 1) {
    return "uniq with an output file writes it";
  }
  if (name === "sed") {
    if (args.some((a) => /^(-i|--in-place|-[a-zA-Z]*i)/.test(a))) return "sed -i edits files";
    const scripts = args.filter((a) => !a.startsWith("-"));
    if (!scripts.length || !SED_PRINT.test(scripts[0])) {
      return "only sed scripts that print line ranges (e.g. sed -n '1,40p' file) count as reading";
    }
  }
  if (name === "git") {
    const sub = args[0];
    if (sub === undefined || !GIT_READERS.has(sub)) {
      return `git ${sub ?? ""} is not a read-only git command`.replace("  ", " ");
    }
    if (sub === "branch" && args.slice(1).some((a) => !GIT_BRANCH_LISTING.has(a))) {
      return "git branch with arguments may create, rename or delete branches";
    }
  }
  return undefined;
}

/**
 * Why `command` is not read-only for plan mode, or undefined when every command it runs only
 * reads. Nested and indirect commands (`bash -c`, `eval`, `xargs`, `$(…)`) never count as
 * read-only: what they run is not plain text the check can see. E.g. `git diff | head -50`
 * is read-only; `rm -rf build` is not ("rm is not a read-only command").
 */
export function shellWriteReason(command: string): string | undefined {
  const shell = analyzeShell(command);
  if (!shell.complete) return "it has syntax the checker does not follow";
  if (shell.undecidable.length) return shell.undecidable[0];
  const hiding = [...shell.features].filter((f) =>
    HIDING_FEATURES.has(f) || f === "nested_shell" || f === "wrapper" || f === "background"
  );
  if (hiding.length) {
    return `it uses ${hiding.map((f) => f.replace("_", " ")).join(", ")}`;
  }
  const commands = shell.commands.filter((c) => c.words.length || c.redirects.length);
  if (!commands.length) return "it runs nothing the checker can see";
  for (const cmd of commands) {
    if (cmd.depth !== 0 || cmd.derived) return "it runs a nested command";
    const why = commandRefusal(cmd);
    if (why) return why;
  }
  return undefined;
}

/**
 * Why plan mode refuses `call`, or undefined when it may go on to the policy. `family` and
 * `readOnly` are the call's own (a proxy such as `use_capability` names what it reaches).
 */
export function planModeRefusal(
  call: PolicyCall,
  opts: { extraWriteDirs?: boolean } = {},
): string | undefined {
  if (call.command !== undefined) {
    if (opts.extraWriteDirs) return "it asks for extra write directories";
    const why = shellWriteReason(call.command);
    return why ? `the command is not read-only (${why})` : undefined;
  }
  if (WRITER_TOOLS.has(call.tool)) return `${call.tool} changes files or memory`;
  if (call.writes.length) return "it writes files";
  if (!call.readOnly) {
    return call.family.startsWith("mcp__") || call.tool === "use_capability"
      ? `${call.family} is not marked read-only by its server`
      : `${call.tool} is not a read-only tool`;
  }
  return undefined;
}

/** The tool result for a call plan mode refused: what happened and how to go on. */
export function planModeMessage(call: PolicyCall, reason: string): string {
  const what = call.command !== undefined ? `bash: ${call.command.trim()}` : call.tool;
  return `Plan mode is on: ${what} was not run because ${reason}. While planning only ` +
    "read-only tools run. Finish researching, then present the plan for approval with " +
    'use_capability {"capability":"exit_plan_mode","arguments":{"plan":"<Markdown>"}}; ' +
    "the user can also leave plan mode with /plan or Shift+Tab.";
}

/**
 * Whether the short window after an approved plan may answer an `ask` for this command:
 * only a plain list of simple commands. Nested or indirect commands (`bash -c`, `sh -c`,
 * `eval`, `xargs sh`, `find -exec`, `$(…)`) still ask as the rules say.
 */
export function plainCommand(command: string): boolean {
  const shell = analyzeShell(command);
  if (!shell.complete || shell.undecidable.length) return false;
  for (const f of shell.features) {
    if (HIDING_FEATURES.has(f) || f === "nested_shell" || f === "wrapper") return false;
  }
  return shell.commands.every((c) => c.depth === 0 && !c.derived);
}
