/**
 * A conservative analyser of `bash -c` command text for permission rules. It splits a command
 * into the simple commands bash would run — including those inside `$(…)`, backticks, `<(…)`,
 * subshells, groups, `sh -c '…'`, `eval` and wrappers such as `env`, `xargs` and
 * `find -exec` — and reports every construct that hides or computes a command.
 *
 * It is deliberately not a full bash parser. Allow rules use it only when the text is a plain
 * list of simple commands; anything else falls to the preset. Deny rules are matched against
 * every command it can see. Whatever it cannot decide statically — a program computed at run
 * time, a builtin that runs text as code (`eval`, `trap`, `source`, aliases), a word bash
 * evaluates as arithmetic (array subscripts, `${x:off}`, `[[ a -eq b ]]`), an indirect or
 * prompt expansion, a shell reading its script from standard input — is listed in
 * `undecidable`, so the policy can deny (when a deny rule exists) instead of guessing.
 *
 * `shell-quote` was rejected: it treats a newline as a blank and does not understand backticks
 * or `$(…)`. Parsers built from mvdan/sh were tried too: `mvdan-sh` (GopherJS) adds about
 * 80 ms to the first command and is no longer maintained, and `sh-syntax` (WASM) takes 5-10 ms
 * per parse and returns no node types in its JSON. Neither answers the questions that matter
 * here — which builtins and expansions make bash evaluate text — so those rules would have to
 * be written over its tree anyway.
 *
 * @module
 */
import {
  BASH_LIKE_SHELLS,
  codeVariable,
  gitGlobals,
  gitRunners,
  type Inner,
  isWrapper,
  OTHER_SHELLS,
  plainArithmetic,
  shellRun,
  wrapperInner,
} from "./shell_commands.ts";

/** One word of a simple command. */
export interface ShellWord {
  /** The word after quote removal; expansions and substitutions keep their source text. */
  text: string;
  /** Whether the value is fixed before the command runs (no expansion, substitution or glob). */
  literal: boolean;
}

/** A redirection such as `> file`, `2>&1` or `<<EOF`. */
export interface ShellRedirect {
  /** The operator, e.g. `>`, `>>`, `<`, `>&`, `<<`. */
  op: string;
  /** The file descriptor number written before the operator, if any. */
  fd?: string;
  /** The target word; for here-documents the delimiter. */
  target?: ShellWord;
}

/** A command bash would execute: assignments, a program with arguments, redirections. */
export interface SimpleCommand {
  assignments: ShellWord[];
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** 0 at the top level; deeper inside substitutions, subshells, groups and nested scripts. */
  depth: number;
  /** Found by looking through a wrapper (`env`, `xargs`, `find -exec` …), not written as one. */
  derived: boolean;
}

/** Constructs found in a command. */
export type ShellFeature =
  | "sequence"
  | "and_or"
  | "pipe"
  | "background"
  | "subshell"
  | "group"
  | "substitution"
  | "process_substitution"
  | "arithmetic"
  | "parameter"
  | "glob"
  | "heredoc"
  | "reserved_word"
  | "function"
  | "assignment"
  | "redirect"
  | "nested_shell"
  | "wrapper"
  | "dynamic_command"
  | "undecidable";

/** What {@linkcode analyzeShell} found. */
export interface ShellAnalysis {
  commands: SimpleCommand[];
  features: Set<ShellFeature>;
  /** False when the text holds something this analyser does not follow (e.g. an open quote). */
  complete: boolean;
  /**
   * Why the effect of the text cannot be decided statically, one reason per construct, e.g.
   * "eval runs its arguments as code". Empty when it can.
   */
  undecidable: string[];
}

/** Features that hide or compute commands, so a prefix rule must never approve the text. */
export const HIDING_FEATURES: ReadonlySet<ShellFeature> = new Set<ShellFeature>([
  "subshell",
  "group",
  "substitution",
  "process_substitution",
  "arithmetic",
  "heredoc",
  "reserved_word",
  "function",
  "dynamic_command",
  "undecidable",
]);

const BLANK = new Set([" ", "\t"]);
const META = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);
const CONTROL_OPS = [";;&", "&&", "||", ";;", ";&", "|&", ";", "&", "|"];
const REDIRECT_OPS = ["<<<", "<<-", "&>>", "<<", "&>", ">>", ">|", "<>", ">&", "<&", "<", ">"];
const RESERVED = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "for",
  "select",
  "case",
  "esac",
  "function",
  "time",
  "coproc",
  "!",
  "{",
  "}",
  "[[",
  "]]",
]);
/** `find`/`fd` options followed by a command that ends at `;` or `+`. */
const EXEC_OPTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir", "-x", "--exec", "-X"]);
const MAX_DEPTH = 8;
const MAX_GUESSES = 16;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/;
/** `[[ … ]]` operators that evaluate both sides as arithmetic. */
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** A literal word holding a subscript with a substitution: code if bash ever evaluates it. */
const PAYLOAD = /\[[^\]]*[$`]/;
/** Builtins that declare or assign variables named by their arguments. */
const DECLARATIONS = new Set(["declare", "typeset", "local", "export", "readonly"]);
/** Builtins that assign to names, where `name[subscript]` is evaluated. */
const NAME_TAKERS = new Set(["read", "unset", "getopts", "wait", "mapfile", "readarray"]);
/** An integer subscript or `@`/`*`: the only ones that evaluate nothing. */
const PLAIN_SUBSCRIPT = /^\s*(?:@|\*|[+-]?[0-9]+)\s*$/;

interface RawWord extends ShellWord {
  /** Any quoting or escaping appeared. */
  quoted: boolean;
  /** Source text of the word. */
  raw: string;
}

/** Where a wrapper's command is searched for: exactly, or in every suffix for deny rules. */
type Look = "exact" | "guess";

function baseName(path: string): string {
  const at = path.lastIndexOf("/");
  return at < 0 ? path : path.slice(at + 1);
}

class Parser {
  pos = 0;
  readonly #src: string;
  readonly #out: ShellAnalysis;
  readonly #depth: number;

  constructor(src: string, out: ShellAnalysis, depth: number) {
    this.#src = src;
    this.#out = out;
    this.#depth = depth;
  }

  #feature(f: ShellFeature): void {
    this.#out.features.add(f);
  }

  /** Records a construct whose effect cannot be decided statically. */
  #undecidable(reason: string): void {
    this.#out.features.add("undecidable");
    if (!this.#out.undecidable.includes(reason)) this.#out.undecidable.push(reason);
  }

  /** Records a program chosen at run time. */
  #dynamic(reason: string): void {
    this.#feature("dynamic_command");
    this.#undecidable(reason);
  }

  /**
   * Parses a command list from `pos`. With `closeParen`, stops after the `)` that closes it
   * and returns true when that `)` was found.
   */
  parseList(closeParen: boolean): boolean {
    const src = this.#src;
    let cmd = this.#newCommand(0);
    let nesting = 0; // open subshells and groups inside this list
    let caseDepth = 0;
    let inPattern = false; // reading a `case` pattern, up to its `)`
    let inTest = false; // inside `[[ … ]]`
    let testWords: ShellWord[] = [];
    let afterTime = false; // `time` may take `-p` before its command
    // Words that name something rather than run: the name after `function`, or the whole
    // `for x in a b c` / `select …` header up to its `;` or newline.
    let drop: "one" | "line" | undefined;
    let heredocs: { delim: string; strip: boolean; expand: boolean }[] = [];

    const finish = () => {
      this.#emit(cmd);
      cmd = this.#newCommand(nesting);
      drop = undefined;
    };
    const readHeredocs = () => {
      for (const h of heredocs) this.#readHeredocBody(h.delim, h.strip, h.expand);
      heredocs = [];
    };

    while (this.pos < src.length) {
      const c = src[this.pos];
      if (BLANK.has(c)) {
        this.pos++;
        continue;
      }
      if (c === "\\" && src[this.pos + 1] === "\n") {
        this.pos += 2;
        continue;
      }
      if (c === "#") {
        while (this.pos < src.length && src[this.pos] !== "\n") this.pos++;
        continue;
      }
      if (c === "\n") {
        this.pos++;
        if (cmd.words.length || cmd.assignments.length || cmd.redirects.length) {
          this.#feature("sequence");
        }
        finish();
        readHeredocs();
        continue;
      }
      if (inTest) {
        // `[[ … ]]` compares with `<`, `>`, `&&`, `||` and parentheses; none of them run.
        const op = this.#matchOp([...CONTROL_OPS, ...REDIRECT_OPS, "(", ")"]);
        if (op) {
          this.pos += op.length;
          continue;
        }
        const w = this.#readWord();
        if (w.raw === "]]") {
          inTest = false;
          this.#checkTest(testWords);
          testWords = [];
        } else testWords.push({ text: w.text, literal: w.literal });
        continue;
      }
      if (c === ")") {
        if (inPattern) {
          inPattern = false;
          this.pos++;
          cmd = this.#newCommand(nesting);
          drop = undefined;
          continue;
        }
        if (nesting > 0) {
          nesting--;
          this.pos++;
          finish();
          continue;
        }
        this.pos++;
        finish();
        if (closeParen) return true;
        this.#out.complete = false;
        continue;
      }
      if (c === "(") {
        if (inPattern) {
          this.pos++;
          continue;
        }
        if (src[this.pos + 1] === "(" && cmd.words.length === 0) {
          // `(( … ))`: an arithmetic command.
          this.#feature("arithmetic");
          const from = this.pos + 2;
          this.pos = this.#scanArithmetic(from);
          this.#checkArithmetic(src.slice(from, this.pos - 2), "(( … ))");
          continue;
        }
        if (cmd.words.length > 0) {
          // `name() { …; }`: a function definition; the name does not run.
          const close = src.indexOf(")", this.pos);
          if (close >= 0 && src.slice(this.pos + 1, close).trim() === "") {
            this.#feature("function");
            this.pos = close + 1;
            cmd = this.#newCommand(nesting);
            continue;
          }
        }
        if (
          cmd.words.length === 0 && cmd.assignments.length > 0 &&
          src[this.pos - 1] === "="
        ) {
          // `name=(a b c)`: an array assignment; `[k]=v` subscripts are evaluated.
          this.#feature("assignment");
          const from = this.pos + 1;
          this.pos = this.#skipBalanced(from);
          if (src.slice(from, this.pos).includes("[")) {
            this.#undecidable("an array assignment has subscripts, which bash evaluates");
          }
          continue;
        }
        this.#feature("subshell");
        finish();
        nesting++;
        cmd = this.#newCommand(nesting);
        this.pos++;
        continue;
      }
      if ((c === "<" || c === ">") && src[this.pos + 1] === "(") {
        this.#feature("process_substitution");
        const end = this.#nested(this.pos + 2);
        cmd.words.push({ text: src.slice(this.pos, end), literal: false });
        this.pos = end;
        continue;
      }
      const control = this.#matchOp(CONTROL_OPS);
      if (control) {
        this.pos += control.length;
        if (inPattern && control === "|") continue;
        if (control === "&&" || control === "||") this.#feature("and_or");
        else if (control === "|" || control === "|&") this.#feature("pipe");
        else if (control === "&") this.#feature("background");
        else if (control === ";") this.#feature("sequence");
        else {
          // `;;`, `;&`, `;;&` end a `case` branch; a pattern follows.
          this.#feature("reserved_word");
          inPattern = caseDepth > 0;
        }
        finish();
        continue;
      }
      const redirect = this.#matchOp(REDIRECT_OPS);
      if (redirect) {
        this.pos += redirect.length;
        this.#readRedirect(cmd, { op: redirect }, heredocs);
        continue;
      }

      const word = this.#readWord();
      if (/^[0-9]+$/.test(word.raw) && (src[this.pos] === "<" || src[this.pos] === ">")) {
        const op = this.#matchOp(REDIRECT_OPS);
        if (op) {
          this.pos += op.length;
          this.#readRedirect(cmd, { op, fd: word.raw }, heredocs);
          continue;
        }
      }
      if (inPattern) {
        if (word.raw === "esac") {
          caseDepth--;
          inPattern = false;
        }
        continue;
      }
      if (drop && cmd.words.length === 0) {
        if (drop === "one") drop = undefined;
        continue;
      }
      if (afterTime && cmd.words.length === 0 && !word.quoted && /^(-p|--)$/.test(word.raw)) {
        continue;
      }
      afterTime = false;
      if (cmd.words.length === 0 && !word.quoted && RESERVED.has(word.raw)) {
        this.#feature("reserved_word");
        switch (word.raw) {
          case "{":
            this.#feature("group");
            finish();
            nesting++;
            cmd = this.#newCommand(nesting);
            break;
          case "}":
            finish();
            if (nesting > 0) nesting--;
            cmd = this.#newCommand(nesting);
            break;
          case "for":
          case "select":
            drop = "line";
            break;
          case "function":
            this.#feature("function");
            drop = "one";
            break;
          case "case": {
            caseDepth++;
            // `case WORD in`: the subject never runs; patterns follow `in`.
            this.#skipBlanksAndRead();
            const kw = this.#skipBlanksAndRead();
            if (kw?.raw === "in") inPattern = true;
            else this.#out.complete = false;
            break;
          }
          case "esac":
            if (caseDepth > 0) caseDepth--;
            inPattern = false;
            break;
          case "[[":
            inTest = true;
            testWords = [];
            break;
          case "time":
            afterTime = true;
            break;
          case "coproc":
            this.#undecidable("coproc runs a command whose name bash decides while parsing");
            break;
          default:
            break;
        }
        continue;
      }
      if (
        cmd.words.length === 0 && !word.raw.startsWith("=") && ASSIGNMENT.test(word.raw)
      ) {
        this.#feature("assignment");
        this.#checkAssignment(word.raw, word);
        cmd.assignments.push({ text: word.text, literal: word.literal });
        continue;
      }
      cmd.words.push({ text: word.text, literal: word.literal });
    }
    finish();
    readHeredocs();
    if (nesting > 0 || inTest || caseDepth > 0) this.#out.complete = false;
    if (closeParen) {
      this.#out.complete = false;
      return false;
    }
    return true;
  }

  #newCommand(nesting: number): SimpleCommand {
    return {
      assignments: [],
      words: [],
      redirects: [],
      depth: this.#depth + nesting,
      derived: false,
    };
  }

  #emit(cmd: SimpleCommand): void {
    if (!cmd.words.length && !cmd.assignments.length && !cmd.redirects.length) return;
    this.#out.commands.push(cmd);
    if (cmd.words.length) this.#inspect(cmd, "exact");
  }

  /**
   * Looks at one command: records what makes it undecidable and adds the commands it runs
   * (wrappers, nested shells, `eval`, `find -exec`). With `guess`, the command is only one
   * candidate reading of a wrapper's arguments, so it feeds deny rules and is never decided on.
   */
  #inspect(cmd: SimpleCommand, look: Look): void {
    const words = cmd.words;
    const first = words[0];
    if (look === "exact") this.#checkWords(words);
    if (!first.literal) {
      if (look === "exact") this.#dynamic("the program it runs is computed at run time");
      return;
    }
    const name = baseName(first.text);
    if (look === "exact" && this.#checkBuiltin(cmd, name)) return;
    if (BASH_LIKE_SHELLS.has(name) || OTHER_SHELLS.has(name)) {
      this.#nestedShell(cmd, name, look);
      return;
    }
    if (name === "find" || name === "fd" || name === "fdfind") {
      this.#findExec(cmd, look);
      return;
    }
    if (name === "git") {
      this.#git(cmd, look);
      return;
    }
    if (look === "exact" && isWrapper(name)) this.#wrapper(cmd, name);
  }

  /** Undecidable builtins; returns true when nothing else about the command matters. */
  #checkBuiltin(cmd: SimpleCommand, name: string): boolean {
    const args = cmd.words.slice(1);
    const texts = args.map((w) => w.text);
    const literalScript = () => args.every((w) => w.literal) && texts.join(" ");
    switch (name) {
      case "eval": {
        this.#undecidable("eval runs its arguments as code");
        const script = literalScript();
        if (script === false) this.#dynamic("eval runs computed text");
        else if (script) {
          this.#feature("nested_shell");
          this.#nestedScript(script, cmd.depth + 1);
        }
        return true;
      }
      case "source":
      case ".":
        this.#undecidable(`${name} runs a file as code`);
        return true;
      case "trap":
        if (args.length && !["-l", "-p"].includes(texts[0])) {
          this.#undecidable("trap sets code bash runs later");
          if (args[0].literal && texts[0] !== "--") this.#nestedScript(texts[0], cmd.depth + 1);
        }
        return true;
      case "alias":
        if (args.some((w) => w.text !== "-p")) {
          this.#undecidable("alias defines text bash may run in place of a command");
          for (const w of args) {
            const eq = w.text.indexOf("=");
            if (w.literal && eq > 0) this.#nestedScript(w.text.slice(eq + 1), cmd.depth + 1);
          }
        }
        return true;
      case "shopt":
        this.#undecidable("shopt changes how bash parses and expands later commands");
        return true;
      case "enable":
        if (args.length) this.#undecidable("enable loads or switches builtins");
        return true;
      case "hash":
        if (texts.some((t) => /^-[A-Za-z]*p/.test(t))) {
          this.#undecidable("hash -p maps a command name to any program");
        }
        return true;
      case "compgen":
      case "complete":
      case "bind":
      case "fc":
        this.#undecidable(`${name} can run or expand text as code`);
        return true;
      case "let":
        if (!texts.every(plainArithmetic)) {
          this.#undecidable("let evaluates arithmetic, where names and array subscripts run code");
        }
        return true;
      case "printf":
        if (texts[0] === "-v" || /^-v./.test(texts[0] ?? "")) {
          this.#undecidable("printf -v assigns to a name, whose subscript bash evaluates");
        }
        return true;
      case "test":
      case "[":
        if (texts.some((t) => t === "-v" || t === "-R")) {
          this.#undecidable(`${name} -v evaluates an array subscript`);
        }
        return true;
      case "mapfile":
      case "readarray":
        if (texts.some((t) => /^-[A-Za-z]*C/.test(t))) {
          this.#undecidable(`${name} -C runs a callback as code`);
        }
        break;
      default:
        break;
    }
    if (DECLARATIONS.has(name)) {
      for (const w of args) {
        const t = w.text;
        if (/^[-+][A-Za-z]*[ni]/.test(t)) {
          this.#undecidable(
            `${name} ${t} declares a name reference or an integer, which bash evaluates`,
          );
        } else if (!t.startsWith("-") && !t.startsWith("+")) {
          this.#checkNamed(name, t);
          if (/=\(/.test(t)) this.#undecidable(`${name} assigns an array from text`);
        }
      }
      return true;
    }
    if (NAME_TAKERS.has(name)) {
      for (const t of texts) this.#checkNamed(name, t);
      return true;
    }
    return false;
  }

  /** A name argument of a builtin: subscripts are evaluated, some names hold code. */
  #checkNamed(builtin: string, text: string): void {
    const name = text.split("=")[0];
    if (name.includes("[")) {
      this.#undecidable(`${builtin} ${name} has an array subscript, which bash evaluates`);
    }
    const why = codeVariable(name);
    if (why) this.#undecidable(why);
  }

  /** Assignment words before a command, or on their own. */
  #checkAssignment(raw: string, word: RawWord): void {
    const m = ASSIGNMENT.exec(raw)!;
    const why = codeVariable(m[1]);
    if (why) this.#undecidable(why);
    if (m[2] && !PLAIN_SUBSCRIPT.test(m[2].slice(1, -1))) {
      this.#undecidable(`the assignment to ${m[1]}${m[2]} has a subscript bash evaluates`);
    }
    if (word.literal && PAYLOAD.test(word.text.slice(m[0].length))) {
      this.#undecidable("a value holds an array subscript with a substitution, code if evaluated");
    }
  }

  /** Literal arguments that would run code if bash evaluated them later (`$_` tricks). */
  #checkWords(words: readonly ShellWord[]): void {
    if (words.some((w) => w.literal && PAYLOAD.test(w.text))) {
      this.#undecidable(
        "an argument holds an array subscript with a substitution, which bash runs if it " +
          "evaluates the word later",
      );
    }
  }

  /** The words of `[[ … ]]`: `-v` and arithmetic comparisons evaluate their operands. */
  #checkTest(words: readonly ShellWord[]): void {
    for (let i = 0; i < words.length; i++) {
      const t = words[i].text;
      if (!words[i].literal) continue;
      if (t === "-v" || t === "-R") {
        this.#undecidable("[[ -v … ]] evaluates an array subscript");
      } else if (ARITHMETIC_TESTS.has(t)) {
        const plain = (w?: ShellWord) => !!w && w.text.trim() !== "" && plainArithmetic(w.text);
        if (!plain(words[i - 1]) || !plain(words[i + 1])) {
          this.#undecidable(`[[ … ${t} … ]] evaluates its operands as arithmetic`);
        }
      }
    }
  }

  /** Arithmetic text (`(( … ))`, `$(( … ))`, `$[ … ]`, substring offsets). */
  #checkArithmetic(text: string, where: string): void {
    if (!plainArithmetic(text)) {
      this.#undecidable(
        `${where} evaluates names or array subscripts as arithmetic, which can run code`,
      );
    }
  }

  #findExec(cmd: SimpleCommand, look: Look): void {
    const words = cmd.words;
    for (let i = 1; i < words.length; i++) {
      if (!words[i].literal || !EXEC_OPTIONS.has(words[i].text)) continue;
      this.#feature("wrapper");
      let end = i + 1;
      while (end < words.length && words[end].text !== ";" && words[end].text !== "+") end++;
      if (end > i + 1) {
        const inner = words.slice(i + 1, end);
        if (look === "exact") this.#checkReplaced(baseName(words[0].text), inner, "{}");
        this.#derive(cmd, inner, look);
      }
      i = end;
    }
  }

  #git(cmd: SimpleCommand, look: Look): void {
    const words = cmd.words;
    const globals = gitGlobals(words);
    if (globals.undecidable) {
      if (look === "exact") this.#undecidable(globals.undecidable);
      return;
    }
    if (globals.subcommand === undefined) return;
    const runs = gitRunners(words, globals.subcommand);
    if (runs.undecidable && look === "exact") this.#undecidable(runs.undecidable);
    for (const i of runs.scripts) this.#script(words[i], cmd.depth + 1);
    for (const i of runs.commands) {
      if (i < words.length) this.#derive(cmd, words.slice(i), look);
    }
  }

  #wrapper(cmd: SimpleCommand, name: string): void {
    this.#feature("wrapper");
    const inner: Inner = wrapperInner(name, cmd.words);
    switch (inner.kind) {
      case "none":
        return;
      case "script":
        this.#script(inner.script, cmd.depth + 1);
        return;
      case "joined": {
        const rest = cmd.words.slice(inner.start);
        if (rest.some((w) => !w.literal)) {
          this.#dynamic(`${name} runs computed text through a shell`);
        } else this.#nestedScript(rest.map((w) => w.text).join(" "), cmd.depth + 1);
        return;
      }
      case "undecidable":
        this.#undecidable(inner.reason);
        if (cmd.words.some((w) => !w.literal)) this.#feature("dynamic_command");
        if (inner.guess) {
          // Suffixes are candidates for the inner command, so a deny rule can be named. The
          // command is undecidable anyway, which denies it under any deny rule: a cap loses
          // nothing but the name.
          for (let i = 1; i < Math.min(cmd.words.length, MAX_GUESSES); i++) {
            this.#derive(cmd, cmd.words.slice(i), "guess");
          }
        }
        return;
      case "command": {
        const rest = cmd.words.slice(inner.start);
        if (inner.replace !== undefined) this.#checkReplaced(name, rest, inner.replace);
        this.#derive(cmd, rest, "exact");
        return;
      }
    }
  }

  /** `xargs -I R …` and `find -exec … {}` put input where `r` stands in the inner command. */
  #checkReplaced(name: string, inner: readonly ShellWord[], r: string): void {
    if (!inner.length || r === "") return;
    const program = baseName(inner[0].text);
    if (inner[0].text.includes(r)) {
      this.#dynamic(`${name} builds the program name from its input`);
    } else if (BASH_LIKE_SHELLS.has(program) || OTHER_SHELLS.has(program)) {
      // `sh -c 'echo "$1"' _ {}` passes input as an argument, which is safe; in the script
      // itself, or as the script's file name, input is code.
      const run = shellRun(inner);
      if (run.kind !== "undecidable" && inner[run.index].text.includes(r)) {
        this.#undecidable(`${name} puts its input into a shell script`);
      }
    }
  }

  #derive(from: SimpleCommand, words: ShellWord[], look: Look): void {
    if (!words.length) return;
    const derived: SimpleCommand = {
      assignments: [],
      words,
      redirects: [],
      depth: from.depth,
      derived: true,
    };
    this.#out.commands.push(derived);
    this.#inspect(derived, look);
  }

  /** A script given as one word (`sh -c WORD`, `flock -c WORD`). */
  #script(word: ShellWord | undefined, depth: number): void {
    if (!word) return;
    if (!word.literal) {
      this.#dynamic("a shell runs a computed script");
      return;
    }
    this.#feature("nested_shell");
    this.#nestedScript(word.text, depth);
  }

  #nestedShell(cmd: SimpleCommand, name: string, look: Look): void {
    const run = shellRun(cmd.words);
    const other = OTHER_SHELLS.has(name);
    if (run.kind === "undecidable") {
      // The commands it runs come from a pipe, a file descriptor or a computed word.
      if (look === "exact") this.#dynamic(run.reason);
      return;
    }
    if (run.kind === "file") return; // `sh script.sh` runs a file, like `./script.sh`
    if (other && look === "exact") {
      this.#undecidable(`${name} scripts have their own syntax, which is not checked`);
    }
    this.#script(cmd.words[run.index], cmd.depth + 1);
  }

  #nestedScript(text: string, depth: number): void {
    if (depth > MAX_DEPTH) {
      this.#out.complete = false;
      return;
    }
    new Parser(text, this.#out, depth).parseList(false);
  }

  /** Parses `$(`/`<(` contents starting at `start`; returns the index after the closing `)`. */
  #nested(start: number): number {
    if (this.#depth >= MAX_DEPTH) {
      this.#out.complete = false;
      return this.#src.length;
    }
    const sub = new Parser(this.#src, this.#out, this.#depth + 1);
    sub.pos = start;
    sub.parseList(true);
    return sub.pos;
  }

  #matchOp(ops: readonly string[]): string | undefined {
    for (const op of ops) if (this.#src.startsWith(op, this.pos)) return op;
    return undefined;
  }

  #skipBlanksAndRead(): RawWord | undefined {
    while (BLANK.has(this.#src[this.pos])) this.pos++;
    if (this.pos >= this.#src.length || META.has(this.#src[this.pos])) return undefined;
    return this.#readWord();
  }

  /** Reads the target of redirection `op` (on descriptor `fd`, when one was written). */
  #readRedirect(
    cmd: SimpleCommand,
    { op, fd }: { op: string; fd?: string },
    heredocs: { delim: string; strip: boolean; expand: boolean }[],
  ): void {
    const target = this.#skipBlanksAndRead();
    if (!target) {
      this.#out.complete = false;
      cmd.redirects.push({ op, fd });
      return;
    }
    if (op === "<<" || op === "<<-") {
      this.#feature("heredoc");
      heredocs.push({ delim: target.text, strip: op === "<<-", expand: !target.quoted });
    } else if (!((op === ">&" || op === "<&") && /^([0-9]+-?|-)$/.test(target.raw))) {
      this.#feature("redirect");
    }
    cmd.redirects.push({ op, fd, target: { text: target.text, literal: target.literal } });
  }

  /** Consumes a here-document body after the newline that ends its command line. */
  #readHeredocBody(delim: string, strip: boolean, expand: boolean): void {
    const src = this.#src;
    while (this.pos < src.length) {
      let end = src.indexOf("\n", this.pos);
      if (end < 0) end = src.length;
      let line = src.slice(this.pos, end);
      const start = this.pos;
      this.pos = Math.min(end + 1, src.length);
      if (strip) line = line.replace(/^\t+/, "");
      if (line === delim) return;
      if (expand) this.#scanExpansions(start, end);
    }
    this.#out.complete = false;
  }

  /** Finds substitutions in text read like the inside of double quotes, in `[start, end)`. */
  #scanExpansions(start: number, end: number): void {
    const saved = this.pos;
    this.pos = start;
    while (this.pos < end) {
      const c = this.#src[this.pos];
      if (c === "\\") {
        this.pos += 2;
      } else if (c === "$") {
        this.#readDollar();
      } else if (c === "`") {
        this.#readBacktick();
      } else {
        this.pos++;
      }
    }
    this.pos = Math.max(saved, this.pos);
  }

  /** Reads one word; stops at an unquoted metacharacter. */
  #readWord(): RawWord {
    const src = this.#src;
    const start = this.pos;
    let text = "";
    let literal = true;
    let quoted = false;
    while (this.pos < src.length) {
      const c = src[this.pos];
      if (META.has(c)) break;
      if (c === "\\") {
        if (src[this.pos + 1] === "\n") {
          this.pos += 2;
          continue;
        }
        quoted = true;
        if (this.pos + 1 >= src.length) {
          this.pos++;
          break;
        }
        text += src[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (c === "'") {
        quoted = true;
        const end = src.indexOf("'", this.pos + 1);
        if (end < 0) {
          this.#out.complete = false;
          text += src.slice(this.pos + 1);
          this.pos = src.length;
          break;
        }
        text += src.slice(this.pos + 1, end);
        this.pos = end + 1;
        continue;
      }
      if (c === '"') {
        quoted = true;
        this.pos++;
        const r = this.#readDouble();
        text += r.text;
        literal &&= r.literal;
        continue;
      }
      if (c === "$") {
        if (src[this.pos + 1] === "'") {
          quoted = true;
          const r = this.#readAnsiC();
          text += r.text;
          literal &&= r.literal;
          continue;
        }
        if (src[this.pos + 1] === '"') {
          quoted = true;
          this.pos += 2;
          const r = this.#readDouble();
          text += r.text;
          literal &&= r.literal;
          continue;
        }
      }
      if (c === "$" || c === "`") {
        const r = this.#readSubstitution();
        text += r.text;
        literal &&= r.literal;
        continue;
      }
      if (c === "*" || c === "?" || (c === "[" && this.#closesBracket())) {
        this.#feature("glob");
        literal = false;
      } else if (c === "{" || c === "}") {
        // Brace expansion (`{rm,-rf,x}`, `{1..3}`) turns one word into several; `{}` stays.
        if (c === "{" && this.#bracesExpand()) literal = false;
      } else if (c === "~" && this.pos === start) {
        literal = false;
      }
      text += c;
      this.pos++;
    }
    return { text, literal, quoted, raw: src.slice(start, this.pos) };
  }

  /** Whether the `{` at `pos` opens a brace expansion: a comma or `..` before its `}`. */
  #bracesExpand(): boolean {
    let depth = 0;
    for (let i = this.pos; i < this.#src.length && !META.has(this.#src[i]); i++) {
      const c = this.#src[i];
      if (c === "{") depth++;
      else if (c === "}" && --depth === 0) {
        return /,|\.\.|['"\\$`]/.test(this.#src.slice(this.pos + 1, i));
      }
    }
    return false;
  }

  /** Whether a `]` follows in the same word, making `[` a glob bracket. */
  #closesBracket(): boolean {
    for (let i = this.pos + 1; i < this.#src.length && !META.has(this.#src[i]); i++) {
      if (this.#src[i] === "]") return true;
    }
    return false;
  }

  /** Reads a double-quoted string after its opening quote, through the closing quote. */
  #readDouble(): { text: string; literal: boolean } {
    const src = this.#src;
    let text = "";
    let literal = true;
    while (this.pos < src.length) {
      const c = src[this.pos];
      if (c === '"') {
        this.pos++;
        return { text, literal };
      }
      if (c === "\\") {
        const n = src[this.pos + 1];
        if (n === "\n") {
          this.pos += 2;
          continue;
        }
        if (n === "$" || n === "`" || n === '"' || n === "\\") {
          text += n;
          this.pos += 2;
          continue;
        }
        text += c;
        this.pos++;
        continue;
      }
      if (c === "$" || c === "`") {
        const r = this.#readSubstitution();
        text += r.text;
        literal &&= r.literal;
        continue;
      }
      text += c;
      this.pos++;
    }
    this.#out.complete = false;
    return { text, literal };
  }

  /** Reads a `$…` or backtick substitution at `pos`; a backtick one is never literal. */
  #readSubstitution(): { text: string; literal: boolean } {
    if (this.#src[this.pos] === "$") return this.#readDollar();
    const from = this.pos;
    this.#readBacktick();
    return { text: this.#src.slice(from, this.pos), literal: false };
  }

  /** Reads `$…` at `pos`: a parameter, `${…}`, `$(…)`, `$((…))`, or a literal `$`. */
  #readDollar(): { text: string; literal: boolean } {
    const src = this.#src;
    const start = this.pos;
    const n = src[this.pos + 1];
    if (n === "(" && src[this.pos + 2] === "(") {
      this.#feature("arithmetic");
      this.pos = this.#scanArithmetic(this.pos + 3);
      this.#checkArithmetic(src.slice(start + 3, this.pos - 2), "$(( … ))");
      return { text: src.slice(start, this.pos), literal: false };
    }
    if (n === "[") {
      // `$[ … ]`: the old spelling of `$(( … ))`.
      this.#feature("arithmetic");
      this.pos = this.#scanSubscript(this.pos + 2);
      this.#checkArithmetic(src.slice(start + 2, this.pos - 1), "$[ … ]");
      return { text: src.slice(start, this.pos), literal: false };
    }
    if (n === "(") {
      this.#feature("substitution");
      this.pos = this.#nested(this.pos + 2);
      return { text: src.slice(start, this.pos), literal: false };
    }
    if (n === "{") {
      this.#feature("parameter");
      this.pos = this.#scanBraceParameter(this.pos + 2);
      return { text: src.slice(start, this.pos), literal: false };
    }
    if (n !== undefined && /[A-Za-z_]/.test(n)) {
      this.#feature("parameter");
      this.pos += 2;
      while (this.pos < src.length && /[A-Za-z0-9_]/.test(src[this.pos])) this.pos++;
      return { text: src.slice(start, this.pos), literal: false };
    }
    if (n !== undefined && /[0-9@*#?$!\-]/.test(n)) {
      this.#feature("parameter");
      this.pos += 2;
      return { text: src.slice(start, this.pos), literal: false };
    }
    this.pos++;
    return { text: "$", literal: true };
  }

  /**
   * Scans `${…}` from after `${`; returns the index after the matching `}`. Indirection
   * (`${!x}`), prompt expansion (`${x@P}`), non-numeric subscripts and substring offsets make
   * bash evaluate text it only learns at run time, so they are undecidable.
   */
  #scanBraceParameter(from: number): number {
    const src = this.#src;
    let p = from;
    if (src[p] === "!" && src[p + 1] !== "}") {
      this.#undecidable("${!…} expands a name found at run time, and bash evaluates its subscript");
      p++;
    } else if (src[p] === "#" && src[p + 1] !== "}" && /[A-Za-z_0-9@*#?$!-]/.test(src[p + 1])) {
      p++; // `${#x}`: a length
    }
    const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!\-])/.exec(src.slice(p))?.[0];
    if (!name) {
      this.#undecidable("a ${…} expansion has a form this checker does not follow");
      return this.#scanToBrace(p);
    }
    p += name.length;
    if (src[p] === "[") {
      const end = this.#scanSubscript(p + 1);
      if (!PLAIN_SUBSCRIPT.test(src.slice(p + 1, end - 1))) {
        this.#undecidable(`\${${name}[…]} has a subscript bash evaluates as arithmetic`);
      }
      p = end;
    }
    const op = src[p];
    if (op === ":" && !"-=?+".includes(src[p + 1] ?? "")) {
      const end = this.#scanToBrace(p + 1);
      const text = src.slice(p + 1, end - 1);
      if (!text.split(":").every(plainArithmetic)) {
        this.#undecidable(
          `\${${name}:…} has a substring offset or length bash evaluates as arithmetic`,
        );
      }
      return end;
    }
    if (op === "@" && !"QEULuKkaA".includes(src[p + 1] ?? "")) {
      this.#undecidable(`\${${name}@${src[p + 1] ?? ""}} expands text as a prompt, running code`);
    }
    return this.#scanToBrace(p);
  }

  /** Scans the rest of a `${…}` from `from`; returns the index after the matching `}`. */
  #scanToBrace(from: number): number {
    const src = this.#src;
    this.pos = from;
    while (this.pos < src.length) {
      const c = src[this.pos];
      if (c === "}") return this.pos + 1;
      if (c === "\\") this.pos += 2;
      else if (c === "'") {
        const end = src.indexOf("'", this.pos + 1);
        this.pos = end < 0 ? src.length : end + 1;
      } else if (c === '"') {
        this.pos++;
        this.#readDouble();
      } else if (c === "$") this.#readDollar();
      else if (c === "`") this.#readBacktick();
      else this.pos++;
    }
    this.#out.complete = false;
    return src.length;
  }

  /** Scans a subscript from after `[` to its `]`; returns the index after it. */
  #scanSubscript(from: number): number {
    return this.#scanNested(from, "[", "]");
  }

  /** Scans arithmetic text from `from` to the matching `))`; substitutions inside still run. */
  #scanArithmetic(from: number): number {
    const src = this.#src;
    this.pos = from;
    let depth = 0;
    while (this.pos < src.length) {
      const c = src[this.pos];
      if (c === "(") depth++;
      else if (c === ")") {
        if (depth === 0) {
          if (src[this.pos + 1] === ")") return this.pos + 2;
          this.#out.complete = false;
          return this.pos + 1;
        }
        depth--;
      } else if (c === "$") {
        this.#readDollar();
        continue;
      } else if (c === "`") {
        this.#readBacktick();
        continue;
      } else if (c === "\\") {
        this.pos++;
      }
      this.pos++;
    }
    this.#out.complete = false;
    return src.length;
  }

  /** Skips a balanced `(…)` from after the `(`; returns the index after `)`. */
  #skipBalanced(from: number): number {
    return this.#scanNested(from, "(", ")");
  }

  /**
   * Scans from after an `open` to its matching `close`, reading quotes and substitutions as
   * word pieces so what they run is still seen; returns the index after `close`.
   */
  #scanNested(from: number, open: string, close: string): number {
    const src = this.#src;
    this.pos = from;
    let depth = 0;
    while (this.pos < src.length) {
      const c = src[this.pos];
      if (c === close && depth === 0) return this.pos + 1;
      if (c === open) depth++;
      if (c === close) depth--;
      if (c === "$" || c === "`" || c === "'" || c === '"' || c === "\\") {
        this.#readWordPiece();
        continue;
      }
      this.pos++;
    }
    this.#out.complete = false;
    return src.length;
  }

  #readWordPiece(): void {
    const c = this.#src[this.pos];
    if (c === "$") this.#readDollar();
    else if (c === "`") this.#readBacktick();
    else if (c === "'") {
      const end = this.#src.indexOf("'", this.pos + 1);
      this.pos = end < 0 ? this.#src.length : end + 1;
    } else if (c === '"') {
      this.pos++;
      this.#readDouble();
    } else this.pos += 2;
  }

  /** Reads `` `…` `` at `pos` and analyses its content as a nested command. */
  #readBacktick(): void {
    const src = this.#src;
    this.#feature("substitution");
    let inner = "";
    let i = this.pos + 1;
    while (i < src.length && src[i] !== "`") {
      if (src[i] === "\\" && (src[i + 1] === "`" || src[i + 1] === "\\" || src[i + 1] === "$")) {
        inner += src[i + 1];
        i += 2;
        continue;
      }
      inner += src[i];
      i++;
    }
    if (i >= src.length) this.#out.complete = false;
    this.pos = Math.min(i + 1, src.length);
    this.#nestedScript(inner, this.#depth + 1);
  }

  /** Reads `$'…'` (ANSI-C quoting) at `pos`. */
  #readAnsiC(): { text: string; literal: boolean } {
    const src = this.#src;
    let i = this.pos + 2;
    let text = "";
    let literal = true;
    const simple: Record<string, string> = {
      a: "\x07",
      b: "\b",
      e: "\x1b",
      E: "\x1b",
      f: "\f",
      n: "\n",
      r: "\r",
      t: "\t",
      v: "\v",
      "\\": "\\",
      "'": "'",
      '"': '"',
      "?": "?",
    };
    while (i < src.length && src[i] !== "'") {
      if (src[i] !== "\\") {
        text += src[i++];
        continue;
      }
      const e = src[i + 1];
      if (e === undefined) {
        i++;
        break;
      }
      if (e in simple) {
        text += simple[e];
        i += 2;
        continue;
      }
      const hex = e === "x"
        ? /^[0-9a-fA-F]{1,2}/
        : e === "u"
        ? /^[0-9a-fA-F]{1,4}/
        : e === "U"
        ? /^[0-9a-fA-F]{1,8}/
        : undefined;
      if (hex) {
        const m = hex.exec(src.slice(i + 2));
        if (m) {
          text += String.fromCodePoint(parseInt(m[0], 16));
          i += 2 + m[0].length;
          continue;
        }
      }
      const oct = /^[0-7]{1,3}/.exec(src.slice(i + 1));
      if (oct) {
        text += String.fromCharCode(parseInt(oct[0], 8) & 0xff);
        i += 1 + oct[0].length;
        continue;
      }
      // `\cX` and anything unknown: not decoded, so the value is not known exactly.
      literal = false;
      text += src.slice(i, i + 2);
      i += 2;
    }
    if (i >= src.length) this.#out.complete = false;
    this.pos = Math.min(i + 1, src.length);
    return { text, literal };
  }
}

/** Splits `command` into the simple commands bash would run and the constructs it uses. */
export function analyzeShell(command: string): ShellAnalysis {
  const out: ShellAnalysis = {
    commands: [],
    features: new Set(),
    complete: true,
    undecidable: [],
  };
  new Parser(command, out, 0).parseList(false);
  return out;
}

/** The words of a command as one string, single-spaced, for matching and messages. */
export function commandText(cmd: SimpleCommand): string {
  return cmd.words.map((w) => w.text).join(" ");
}
