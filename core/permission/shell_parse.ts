/**
 * A conservative analyser of `bash -c` command text for permission rules. It splits a command
 * into the simple commands bash would run — including those inside `$(…)`, backticks, `<(…)`,
 * subshells, groups, `sh -c '…'`, `eval` and wrappers such as `env`, `xargs` and
 * `find -exec` — and reports every construct that hides or computes a command.
 *
 * It is deliberately not a full bash parser. Allow rules use it only when the text is a plain
 * list of simple commands; anything else falls to the preset. Deny rules are matched against
 * every command it can see, and a command whose program is computed at run time is reported
 * so the policy can refuse to guess.
 *
 * `shell-quote` was considered and rejected: it treats a newline as a blank and does not
 * understand backticks or `$(…)`, which are exactly the bypasses this module must catch.
 *
 * @module
 */

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
  | "dynamic_command";

/** What {@linkcode analyzeShell} found. */
export interface ShellAnalysis {
  commands: SimpleCommand[];
  features: Set<ShellFeature>;
  /** False when the text holds something this analyser does not follow (e.g. an open quote). */
  complete: boolean;
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
/** Shells whose `-c` argument is a script we analyse too. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "su"]);
/** Programs that run the rest of their arguments as a command. */
const WRAPPERS = new Set([
  "env",
  "command",
  "builtin",
  "exec",
  "nice",
  "nohup",
  "time",
  "timeout",
  "stdbuf",
  "ionice",
  "setsid",
  "sudo",
  "doas",
  "xargs",
  "watch",
  "flock",
  "chrt",
  "taskset",
  "unbuffer",
  "strace",
  "ltrace",
  "nsenter",
  "unshare",
  "chroot",
  "runuser",
  "parallel",
  "busybox",
  "caffeinate",
  "systemd-run",
  "firejail",
  "proxychains",
  "torsocks",
]);
/** `find`/`fd` options followed by a command that ends at `;` or `+`. */
const EXEC_OPTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir", "-x", "--exec", "-X"]);
const MAX_DEPTH = 8;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

interface RawWord extends ShellWord {
  /** Any quoting or escaping appeared. */
  quoted: boolean;
  /** Source text of the word. */
  raw: string;
}

/** A word whose value comes from an expansion or substitution at run time. */
function computed(w: ShellWord): boolean {
  return !w.literal && /[$`]/.test(w.text);
}

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
        if (w.raw === "]]") inTest = false;
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
          this.pos = this.#scanArithmetic(this.pos + 2);
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
          // `name=(a b c)`: an array assignment.
          this.#feature("assignment");
          this.pos = this.#skipBalanced(this.pos + 1);
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
        this.#readRedirect(cmd, redirect, undefined, heredocs);
        continue;
      }

      const word = this.#readWord();
      if (/^[0-9]+$/.test(word.raw) && (src[this.pos] === "<" || src[this.pos] === ">")) {
        const op = this.#matchOp(REDIRECT_OPS);
        if (op) {
          this.pos += op.length;
          this.#readRedirect(cmd, op, word.raw, heredocs);
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
    if (cmd.words.length) this.#lookInside(cmd, true);
  }

  /** Adds the commands a wrapper, nested shell or `eval` would run. */
  #lookInside(cmd: SimpleCommand, expandWrappers: boolean): void {
    const words = cmd.words;
    const first = words[0];
    if (!first.literal) {
      // A derived command is only a guess at where the inner program starts.
      if (!cmd.derived) this.#feature("dynamic_command");
      return;
    }
    const name = baseName(first.text);
    if (SHELLS.has(name)) {
      this.#nestedShell(cmd, name);
      return;
    }
    if (name === "eval") {
      const rest = words.slice(1);
      if (rest.some((w) => !w.literal)) this.#feature("dynamic_command");
      else if (rest.length) {
        this.#feature("nested_shell");
        this.#nestedScript(rest.map((w) => w.text).join(" "), cmd.depth + 1);
      }
      return;
    }
    if ((name === "source" || name === ".") && words[1] && !words[1].literal) {
      this.#feature("dynamic_command");
    }
    if (name === "find" || name === "fd" || name === "fdfind") {
      for (let i = 1; i < words.length; i++) {
        if (!words[i].literal || !EXEC_OPTIONS.has(words[i].text)) continue;
        this.#feature("wrapper");
        let end = i + 1;
        while (end < words.length && words[end].text !== ";" && words[end].text !== "+") end++;
        if (words.slice(i + 1, end).some(computed)) this.#feature("dynamic_command");
        if (end > i + 1) this.#derive(cmd, words.slice(i + 1, end));
        i = end;
      }
      return;
    }
    if (expandWrappers && WRAPPERS.has(name)) {
      this.#feature("wrapper");
      // `env "$CMD"`, `xargs $(…)`: the program the wrapper runs may be computed.
      if (words.slice(1).some(computed)) this.#feature("dynamic_command");
      // Options of each wrapper differ; every suffix is a candidate for the inner command, which
      // is over-inclusive on purpose: it only feeds deny and ask rules.
      for (let i = 1; i < words.length; i++) this.#derive(cmd, words.slice(i));
    }
  }

  #derive(from: SimpleCommand, words: ShellWord[]): void {
    if (!words.length) return;
    const derived: SimpleCommand = {
      assignments: [],
      words,
      redirects: [],
      depth: from.depth,
      derived: true,
    };
    this.#out.commands.push(derived);
    // A derived command's own suffixes are already candidates; only look into shells and find.
    if (words[0].literal) this.#lookInside(derived, false);
  }

  #nestedShell(cmd: SimpleCommand, name: string): void {
    const words = cmd.words;
    for (let i = 1; i < words.length; i++) {
      const w = words[i];
      if (!w.literal) {
        this.#feature("dynamic_command");
        return;
      }
      if (w.text === "--") break;
      if (w.text === "-o" || w.text === "+o" || w.text === "-O" || w.text === "+O") {
        i++;
        continue;
      }
      if (/^[-+][A-Za-z]+$/.test(w.text) && w.text.slice(1).includes("c")) {
        const script = words[i + 1];
        if (!script) return;
        if (!script.literal) {
          this.#feature("dynamic_command");
          return;
        }
        this.#feature("nested_shell");
        this.#nestedScript(script.text, cmd.depth + 1);
        return;
      }
      if (!w.text.startsWith("-") && !w.text.startsWith("+")) return; // `sh script.sh`
    }
    // A shell with no script argument reads its commands from stdin, e.g. `curl … | sh`.
    if (name !== "su") this.#feature("dynamic_command");
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

  #readRedirect(
    cmd: SimpleCommand,
    op: string,
    fd: string | undefined,
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
        // Brace expansion (`{rm,-rf,x}`) turns one word into several.
        if (!(this.pos === start && (src.length === this.pos + 1 || META.has(src[this.pos + 1])))) {
          literal = false;
        }
      } else if (c === "~" && this.pos === start) {
        literal = false;
      }
      text += c;
      this.pos++;
    }
    return { text, literal, quoted, raw: src.slice(start, this.pos) };
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

  /** Scans `${…}` from after `${`; returns the index after the matching `}`. */
  #scanBraceParameter(from: number): number {
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
    const src = this.#src;
    this.pos = from;
    let depth = 0;
    while (this.pos < src.length) {
      const c = src[this.pos];
      if (c === ")" && depth === 0) return this.pos + 1;
      if (c === "(") depth++;
      if (c === ")") depth--;
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
  const out: ShellAnalysis = { commands: [], features: new Set(), complete: true };
  new Parser(command, out, 0).parseList(false);
  return out;
}

/** The words of a command as one string, single-spaced, for matching and messages. */
export function commandText(cmd: SimpleCommand): string {
  return cmd.words.map((w) => w.text).join(" ");
}
