/**
 * Permission rules (spec §3.7): parsing and matching.
 *
 * - `Tool` — every call of a tool family or tool, e.g. `Bash`, `Edit`, `mcp__github`,
 *   `mcp__github__create_issue`, `mcp__github__*`;
 * - `Bash(go test:*)` — simple commands starting with these words;
 * - `Bash(npm run build)` — exactly this simple command;
 * - `Bash(rm -rf*)` — `*` matches any text;
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
import { analyzeShell, type ShellWord } from "./shell_parse.ts";

/** A parsed rule. `text` is the rule as the user wrote it. */
export type Rule =
  | { kind: "tool"; text: string; name: string; pattern: RegExp }
  | { kind: "bash_literal"; text: string; literal: string }
  | { kind: "bash_prefix"; text: string; words: string[] }
  | { kind: "bash_exact"; text: string; words: string[] }
  | { kind: "bash_glob"; text: string; pattern: RegExp }
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

/** The literal words of a one-command specifier such as `git status`. */
function plainWords(spec: string, rule: string): string[] {
  const analysis = analyzeShell(spec);
  const cmds = analysis.commands;
  if (
    !analysis.complete || analysis.features.size > 0 || cmds.length !== 1 ||
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
    return { kind: "bash_glob", text, pattern: new RegExp(`^${core}${tail}$`) };
  }
  return { kind: "bash_exact", text, words: plainWords(trimmed, text) };
}

function pathRule(text: string, name: string, spec: string, home: string | undefined): Rule {
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
  const test = picomatch(pattern, { dot: true, noextglob: true });
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
    if (PATH_FAMILIES.has(name)) return pathRule(text, name, body, opts.home);
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
