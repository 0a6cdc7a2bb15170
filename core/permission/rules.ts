/**
 * Permission rules (spec §3.7): parsing and matching.
 *
 * - `Tool` — every call of a tool family or tool, e.g. `Bash`, `Edit`, `mcp__github`,
 *   `mcp__github__create_issue`, `mcp__github__*`;
 * - `Bash(go test:*)` — simple commands starting with these words;
 * - `Bash(npm run build)` — exactly this simple command;
 * - `Bash(rm -rf*)` — `*` matches any text;
 *
 * Deny and ask rules also match through option order and spelling (`Bash(rm -rf:*)` covers
 * `rm -r -f` and `rm --recursive --force`), through options placed before a subcommand
 * (`Bash(git push:*)` covers `git -C . push`), and through a program's path (`/bin/rm`).
 * Allow rules match the words as written.
 * - `Bash=<literal>` — exactly this whole command line; glob and shell metacharacters are
 *   plain characters;
 * - `Edit(docs/**)`, `Write(...)`, `Read(...)`, `Glob(...)`, `Grep(...)`, `LS(...)` — paths,
 *   relative to the workspace root unless they start with `/`, `//` or `~/`;
 * - `Other(spec)` — for other tools, a `*` pattern over the command the tool declares.
 *
 * @module
 */
import { isAbsolute, join, relative } from "node:path";
import picomatch from "picomatch";
import { isWithin, toPosix } from "../../tools/paths.ts";
import { optionTokens } from "./shell_commands.ts";
import { analyzeShell, type ShellFeature, type ShellWord } from "./shell_parse.ts";

/** A parsed rule. `text` is the rule as the user wrote it. */
export type Rule =
  | { kind: "tool"; text: string; name: string; pattern: RegExp }
  | { kind: "bash_literal"; text: string; literal: string }
  | { kind: "bash_prefix"; text: string; words: string[] }
  | { kind: "bash_exact"; text: string; words: string[] }
  | {
    kind: "bash_glob";
    text: string;
    pattern: RegExp;
    /** For a glob that is a prefix (`rm -rf*`, `git pu*`): its words; the last may continue. */
    prefix?: { words: string[]; partial: boolean };
  }
  | { kind: "path"; text: string; name: string; pattern: string; absolute: boolean; test: Matcher }
  | { kind: "specifier"; text: string; name: string; pattern: RegExp };

type Matcher = (path: string) => boolean;

/** Families whose rule specifier is a path pattern. */
export const PATH_FAMILIES: ReadonlySet<string> = new Set([
  "Read",
  "Edit",
  "Write",
  "Glob",
  "Grep",
  "LS",
]);
/** `Read` rules cover every built-in reader; `Edit` rules every built-in file writer. */
const UMBRELLA: Record<string, ReadonlySet<string>> = {
  Read: new Set(["Read", "Glob", "Grep", "LS"]),
  Edit: new Set(["Edit", "Write"]),
};
/** Families whose path rules look at the paths read rather than written. */
const READ_FAMILIES = UMBRELLA.Read;

const NAME = /^[A-Za-z0-9_.:\-]+$/;
const NAME_GLOB = /^[A-Za-z0-9_.:\-*]+$/;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `*` matches any text (including spaces); everything else is literal. */
function starPattern(text: string): RegExp {
  return new RegExp(`^${text.split("*").map(escapeRegex).join("[\\s\\S]*")}$`);
}

/** Features about what a command runs rather than how it is written. */
const SEMANTIC_FEATURES: ReadonlySet<ShellFeature> = new Set<ShellFeature>([
  "wrapper",
  "nested_shell",
  "dynamic_command",
  "undecidable",
]);

/** The literal words of a one-command specifier such as `git status`. */
function plainWords(spec: string, rule: string): string[] {
  const analysis = analyzeShell(spec);
  // Only syntax matters here: `Bash(eval:*)` or `Bash(xargs:*)` name programs that run code,
  // which is what a deny rule for them is for.
  const cmds = analysis.commands.filter((c) => !c.derived && c.depth === 0);
  const syntax = [...analysis.features].filter((f) => !SEMANTIC_FEATURES.has(f));
  if (
    !analysis.complete || syntax.length > 0 || cmds.length !== 1 ||
    cmds[0].assignments.length || cmds[0].redirects.length ||
    cmds[0].words.some((w) => !w.literal)
  ) {
    throw new RangeError(
      `rule "${rule}": the command inside Bash(...) must be one plain command without ` +
        `operators, quotes that expand, or variables; use Bash=<exact command line> for ` +
        `anything else`,
    );
  }
  return cmds[0].words.map((w) => w.text);
}

function bashRule(text: string, spec: string): Rule {
  const trimmed = spec.trim().replace(/\s+/g, " ");
  if (trimmed === "" || trimmed === ":*") {
    throw new RangeError(`rule "${text}": empty command; write Bash to match every command`);
  }
  if (trimmed.endsWith(":*") && !trimmed.slice(0, -2).includes("*")) {
    return { kind: "bash_prefix", text, words: plainWords(trimmed.slice(0, -2), text) };
  }
  if (trimmed.includes("*")) {
    const body = trimmed.endsWith(":*") ? trimmed.slice(0, -2) : trimmed;
    const tail = trimmed.endsWith(":*") ? "(?: [\\s\\S]*)?" : "";
    const core = body.split("*").map(escapeRegex).join("[\\s\\S]*");
    return {
      kind: "bash_glob",
      text,
      pattern: new RegExp(`^${core}${tail}$`),
      prefix: globPrefix(body),
    };
  }
  return { kind: "bash_exact", text, words: plainWords(trimmed, text) };
}

/** The words of a glob whose only `*` ends it (`rm -rf*`, `rm -rf *`), else undefined. */
function globPrefix(body: string): { words: string[]; partial: boolean } | undefined {
  if (body.indexOf("*") !== body.length - 1) return undefined;
  const head = body.slice(0, -1);
  try {
    const words = plainWords(head.trim(), body);
    return words.length ? { words, partial: !head.endsWith(" ") } : undefined;
  } catch {
    return undefined;
  }
}

/** The rule `text`, written `name(spec)` for a path family; `home` expands a leading `~`. */
function pathRule(
  text: string,
  { name, spec }: { name: string; spec: string },
  home: string | undefined,
): Rule {
  let pattern = spec.trim();
  if (pattern === "") throw new RangeError(`rule "${text}": empty path pattern`);
  let absolute = false;
  if (pattern === "~" || pattern.startsWith("~/")) {
    if (!home) throw new RangeError(`rule "${text}": ~ is used but HOME is not set`);
    pattern = toPosix(join(home, pattern.slice(1)));
    absolute = true;
  } else if (pattern.startsWith("//")) {
    pattern = pattern.slice(1);
    absolute = true;
  } else if (pattern.startsWith("/") || isAbsolute(pattern)) {
    absolute = true;
  } else {
    pattern = pattern.replace(/^(\.\/)+/, "");
    if (pattern.startsWith("../") || pattern === "..") {
      throw new RangeError(
        `rule "${text}": relative path patterns are inside the workspace; write an absolute ` +
          `path for anything outside it`,
      );
    }
  }
  pattern = toPosix(pattern);
  // macOS and Windows file systems ignore case by default: `.ENV` there is `.env`.
  const nocase = Deno.build.os === "darwin" || Deno.build.os === "windows";
  const test = picomatch(pattern, { dot: true, noextglob: true, nocase });
  return { kind: "path", text, name, pattern, absolute, test };
}

/**
 * Parses one rule. Throws `RangeError` naming the rule for anything it cannot parse, so a
 * mistyped deny rule is reported instead of silently matching nothing.
 */
export function parseRule(text: string, opts: { home?: string } = {}): Rule {
  const literal = /^Bash=([\s\S]*)$/.exec(text);
  if (literal) {
    if (literal[1].trim() === "") throw new RangeError(`rule "${text}": empty command`);
    return { kind: "bash_literal", text, literal: literal[1] };
  }
  const spec = /^([^()\s]+)\(([\s\S]*)\)$/.exec(text.trim());
  if (spec) {
    const [, name, body] = spec;
    if (!NAME.test(name)) throw new RangeError(`rule "${text}": invalid tool name "${name}"`);
    if (name === "Bash") return bashRule(text, body);
    if (PATH_FAMILIES.has(name)) return pathRule(text, { name, spec: body }, opts.home);
    if (body.trim() === "") throw new RangeError(`rule "${text}": empty specifier`);
    return { kind: "specifier", text, name, pattern: starPattern(body.trim()) };
  }
  const name = text.trim();
  if (!name || !NAME_GLOB.test(name)) {
    throw new RangeError(
      `rule "${text}" is not a rule; write Tool, Tool(specifier) or Bash=<command line>`,
    );
  }
  return { kind: "tool", text, name, pattern: starPattern(name) };
}

/** Whether a rule named `ruleName` applies to a call of `tool` in rule family `family`. */
export function ruleNameCovers(ruleName: string, family: string, tool: string): boolean {
  if (ruleName === family || ruleName === tool) return true;
  if (UMBRELLA[ruleName]?.has(family)) return true;
  // `mcp__server` covers every tool of that server.
  return /^mcp__[^_]+(?:_[^_]+)*$/.test(ruleName) && family.startsWith(`${ruleName}__`);
}

/** Whether a bare or `*` tool rule covers the call. */
export function toolRuleCovers(
  rule: Extract<Rule, { kind: "tool" }>,
  family: string,
  tool: string,
): boolean {
  if (rule.name.includes("*")) return rule.pattern.test(family) || rule.pattern.test(tool);
  return ruleNameCovers(rule.name, family, tool);
}

/** Whether a path rule's patterns look at reads (true) or writes (false). */
export function pathRuleReads(rule: Extract<Rule, { kind: "path" }>): boolean {
  return READ_FAMILIES.has(rule.name);
}

/** Whether a canonical absolute path matches a path rule. */
export function pathMatches(
  rule: Extract<Rule, { kind: "path" }>,
  path: string,
  workspaceRoot: string,
): boolean {
  if (rule.absolute) return rule.test(toPosix(path));
  if (!isWithin(workspaceRoot, path)) return false;
  const rel = toPosix(relative(workspaceRoot, path));
  return rule.test(rel === "" ? "." : rel);
}

/**
 * Whether a Bash rule matches one simple command. With `strict`, every word the rule looks at
 * must be literal (used for allow rules); otherwise words match by their source text.
 */
export function bashRuleMatches(
  rule: Extract<Rule, { kind: "bash_prefix" | "bash_exact" | "bash_glob" }>,
  words: readonly ShellWord[],
  strict: boolean,
): boolean {
  if (words.length === 0) return false;
  if (rule.kind === "bash_glob") {
    if (strict && words.some((w) => !w.literal)) return false;
    return rule.pattern.test(words.map((w) => w.text).join(" "));
  }
  const n = rule.words.length;
  if (rule.kind === "bash_exact" && words.length !== n) return false;
  if (words.length < n) return false;
  for (let i = 0; i < n; i++) {
    if (strict && !words[i].literal) return false;
    if (words[i].text !== rule.words[i]) return false;
  }
  if (rule.kind === "bash_exact" && strict && words.some((w) => !w.literal)) return false;
  return true;
}

/** A Bash rule matched against simple commands. */
export type BashCommandRule = Extract<Rule, { kind: "bash_prefix" | "bash_exact" | "bash_glob" }>;

/**
 * Whether a deny or ask rule covers one simple command. Besides the words as written, it
 * matches the program by base name (`/bin/rm` is `rm`), options as a set whatever their order
 * and spelling (`-fr`, `-r -f`, `--recursive --force`), and the rule's other words as the
 * command's operands in order, where a word right after an option may be that option's value
 * (`git -C . push`). A computed word may stand for anything, so it satisfies what remains.
 */
export function bashRuleCovers(rule: BashCommandRule, words: readonly ShellWord[]): boolean {
  if (words.length === 0) return false;
  const first = words[0];
  const programs = [first.text];
  if (first.literal && first.text.includes("/")) {
    programs.push(first.text.slice(first.text.lastIndexOf("/") + 1));
  }
  for (const program of programs) {
    const named = [{ text: program, literal: first.literal }, ...words.slice(1)];
    if (bashRuleMatches(rule, named, false)) return true;
    if (!first.literal) continue;
    const shape = rule.kind === "bash_glob"
      ? rule.prefix && { words: rule.prefix.words, partial: rule.prefix.partial, exact: false }
      : { words: rule.words, partial: false, exact: rule.kind === "bash_exact" };
    if (shape && looseMatch(shape, program, named.slice(1))) return true;
  }
  return false;
}

type Entry =
  | { kind: "wild" }
  | { kind: "option"; tokens: string[]; takesNext: boolean }
  | { kind: "operand"; text: string; maybeValue: boolean };

function isOption(text: string): boolean {
  return text.length > 1 && text.startsWith("-");
}

function looseMatch(
  shape: { words: string[]; partial: boolean; exact: boolean },
  program: string,
  args: readonly ShellWord[],
): boolean {
  const [ruleProgram, ...rest] = shape.words;
  const programMatches = program === ruleProgram ||
    (shape.partial && rest.length === 0 && program.startsWith(ruleProgram));
  if (!programMatches) return false;
  const wanted = new Set<string>();
  const operands: string[] = [];
  for (const w of rest) {
    if (isOption(w)) optionTokens(program, w).forEach((t) => wanted.add(t));
    else operands.push(w);
  }
  const partialLast = shape.partial && rest.length > 0 && !isOption(rest[rest.length - 1]);

  const entries: Entry[] = [];
  let dashes = false;
  for (const w of args) {
    const prev = entries[entries.length - 1];
    if (!w.literal) entries.push({ kind: "wild" });
    else if (!dashes && w.text === "--") dashes = true;
    else if (!dashes && isOption(w.text)) {
      entries.push({
        kind: "option",
        tokens: optionTokens(program, w.text),
        takesNext: !w.text.includes("="),
      });
    } else {
      entries.push({
        kind: "operand",
        text: w.text,
        maybeValue: !dashes && prev?.kind === "option" && prev.takesNext,
      });
    }
  }
  const wild = entries.some((e) => e.kind === "wild");
  const given = new Set(entries.flatMap((e) => e.kind === "option" ? e.tokens : []));
  if (!wild && ![...wanted].every((t) => given.has(t))) return false;
  if (shape.exact && !wild && ![...given].every((t) => wanted.has(t))) return false;

  const memo = new Map<number, boolean>();
  const match = (i: number, k: number): boolean => {
    const key = i * (operands.length + 1) + k;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (k === operands.length) {
      result = !shape.exact ||
        entries.slice(i).every((e) => e.kind !== "operand" || e.maybeValue);
    } else if (i >= entries.length) result = false;
    else {
      const e = entries[i];
      if (e.kind === "wild") result = true;
      else if (e.kind === "option") result = match(i + 1, k);
      else {
        const same = e.text === operands[k] ||
          (partialLast && k === operands.length - 1 && e.text.startsWith(operands[k]));
        result = (same && match(i + 1, k + 1)) || (e.maybeValue && match(i + 1, k));
      }
    }
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}
