/**
 * What the shell analyser knows about particular programs: where a wrapper's inner command
 * starts (`timeout -s KILL 5 rm x` runs `rm x`), which options make it run a shell script or
 * read one from standard input, which variables hold code, and which option spellings mean
 * the same thing (`rm --recursive` is `rm -r`).
 *
 * Option tables follow the GNU coreutils and util-linux `--help` texts. A wrapper option that
 * is not in its table makes the command undecidable rather than guessed, because an unknown
 * option may take a value and move the inner command.
 *
 * @module
 */

/** A word as the option parser sees it. */
export interface OptionWord {
  text: string;
  literal: boolean;
}

/** getopt-style option table. */
export interface OptionSpec {
  /** Short options; a letter followed by `:` takes a value, by `::` an attached optional one. */
  short: string;
  /** Long options: 0 no value, 1 a required value, 2 an optional value (only after `=`). */
  long?: Readonly<Record<string, 0 | 1 | 2>>;
  /** Whether `-5` style numbers are options (nice). */
  numeric?: boolean;
}

/** One parsed option, named `-x` or `--name`. */
export interface ParsedOption {
  name: string;
  value?: string;
  /** The word holding the value when it is a word of its own. */
  valueWord?: OptionWord;
}

/** Options up to the first operand, or why they could not be read. */
export type ParsedOptions =
  | { ok: true; options: ParsedOption[]; next: number }
  | { ok: false; reason: string };

/**
 * Reads options from `words[from]` until the first operand or `--` (no permutation: every
 * wrapper here stops at its command). Long options may be abbreviated, as getopt_long allows.
 */
export function parseOptions(
  words: readonly OptionWord[],
  from: number,
  spec: OptionSpec,
): ParsedOptions {
  const options: ParsedOption[] = [];
  let i = from;
  while (i < words.length) {
    const w = words[i];
    if (!w.literal) return { ok: false, reason: "an option is computed at run time" };
    const t = w.text;
    if (t === "--") return { ok: true, options, next: i + 1 };
    if (t === "-" || !t.startsWith("-")) break;
    if (spec.numeric && /^--?[0-9]+$/.test(t)) {
      options.push({ name: "-n", value: t.slice(1) });
      i++;
      continue;
    }
    if (t.startsWith("--")) {
      const eq = t.indexOf("=");
      const key = t.slice(2, eq < 0 ? undefined : eq);
      const name = longName(key, spec.long ?? {});
      if (!name) return { ok: false, reason: `option ${t} is not known` };
      const kind = spec.long![name];
      if (kind === 0 && eq >= 0) return { ok: false, reason: `option ${t} takes no value` };
      if (kind === 1 && eq < 0) {
        if (i + 1 >= words.length) return { ok: false, reason: `option ${t} lacks its value` };
        options.push({ name: `--${name}`, value: words[i + 1].text, valueWord: words[i + 1] });
        i += 2;
        continue;
      }
      options.push({ name: `--${name}`, value: eq < 0 ? undefined : t.slice(eq + 1) });
      i++;
      continue;
    }
    let consumedNext = false;
    for (let j = 1; j < t.length; j++) {
      const c = t[j];
      const at = c === ":" ? -1 : spec.short.indexOf(c);
      if (at < 0) return { ok: false, reason: `option -${c} is not known` };
      const takes = spec.short[at + 1] === ":";
      const optional = takes && spec.short[at + 2] === ":";
      if (!takes) {
        options.push({ name: `-${c}` });
        continue;
      }
      const value = t.slice(j + 1);
      if (value === "" && !optional) {
        if (i + 1 >= words.length) return { ok: false, reason: `option -${c} lacks its value` };
        options.push({ name: `-${c}`, value: words[i + 1].text, valueWord: words[i + 1] });
        consumedNext = true;
      } else options.push({ name: `-${c}`, value: value === "" ? undefined : value });
      break;
    }
    i += consumedNext ? 2 : 1;
  }
  return { ok: true, options, next: i };
}

function longName(key: string, long: Readonly<Record<string, 0 | 1 | 2>>): string | undefined {
  if (key in long) return key;
  const matches = Object.keys(long).filter((k) => k.startsWith(key));
  return key !== "" && matches.length === 1 ? matches[0] : undefined;
}

/** What a wrapper runs, as found from its arguments (`words[0]` is the wrapper). */
export type Inner =
  /** `words[start..]` are the inner command; input may be appended, or `replace` substituted. */
  | { kind: "command"; start: number; replace?: string }
  /** A shell script the wrapper runs with `sh -c`. */
  | { kind: "script"; script: OptionWord }
  /** `words[start..]` joined by spaces are a shell script (`watch`, `sudo -s`). */
  | { kind: "joined"; start: number }
  /** Runs nothing. */
  | { kind: "none" }
  /** Cannot be told; `guess` asks the caller to try every suffix against deny rules. */
  | { kind: "undecidable"; reason: string; guess: boolean };

interface WrapperSpec extends OptionSpec {
  /** Operands before the command, e.g. timeout's DURATION. */
  operands?: number;
  /** `NAME=VALUE` words may precede the command. */
  assignments?: boolean;
  /** Options whose value is a shell script. */
  script?: readonly string[];
  /** Options after which no command runs. */
  none?: readonly string[];
  /** Options whose effect cannot be decided, with the reason. */
  undecidable?: Readonly<Record<string, string>>;
  /** Options that make the wrapper start an interactive shell when no command is given. */
  shellOptions?: readonly string[];
  /** What runs without a command: nothing, or a shell reading standard input. */
  empty: "nothing" | "shell";
}

const SHELL_STDIN = "it starts a shell that reads its commands from standard input";

const SPECS: Readonly<Record<string, WrapperSpec>> = {
  env: {
    short: "0iu:C:S:va:",
    long: {
      "ignore-environment": 0,
      null: 0,
      unset: 1,
      chdir: 1,
      "split-string": 1,
      "block-signal": 2,
      "default-signal": 2,
      "ignore-signal": 2,
      "list-signal-handling": 0,
      debug: 0,
      argv0: 1,
      help: 0,
      version: 0,
    },
    assignments: true,
    undecidable: {
      "-S": "env -S splits a string into a command at run time",
      "--split-string": "env --split-string splits a string into a command at run time",
    },
    empty: "nothing",
  },
  nice: {
    short: "n:",
    long: { adjustment: 1, help: 0, version: 0 },
    numeric: true,
    empty: "nothing",
  },
  nohup: { short: "", long: { help: 0, version: 0 }, empty: "nothing" },
  timeout: {
    short: "fk:ps:v",
    long: {
      foreground: 0,
      "kill-after": 1,
      "preserve-status": 0,
      signal: 1,
      verbose: 0,
      help: 0,
      version: 0,
    },
    operands: 1,
    empty: "nothing",
  },
  stdbuf: {
    short: "i:o:e:",
    long: { input: 1, output: 1, error: 1, help: 0, version: 0 },
    empty: "nothing",
  },
  time: {
    short: "af:o:pqvV",
    long: { append: 0, format: 1, output: 1, portability: 0, quiet: 0, verbose: 0, help: 0 },
    empty: "nothing",
  },
  setsid: {
    short: "cfwhV",
    long: { ctty: 0, fork: 0, wait: 0, help: 0, version: 0 },
    empty: "nothing",
  },
  sudo: {
    short: "Aa:bBC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv",
    long: {
      askpass: 0,
      background: 0,
      bell: 0,
      "close-from": 1,
      chdir: 1,
      chroot: 1,
      "preserve-env": 2,
      edit: 0,
      group: 1,
      "set-home": 0,
      help: 0,
      host: 1,
      login: 0,
      "remove-timestamp": 0,
      "reset-timestamp": 0,
      list: 0,
      "non-interactive": 0,
      "preserve-groups": 0,
      prompt: 1,
      role: 1,
      stdin: 0,
      shell: 0,
      type: 1,
      "command-timeout": 1,
      "other-user": 1,
      user: 1,
      version: 0,
      validate: 0,
    },
    assignments: true,
    none: ["-e", "--edit", "-K", "-V", "--version"],
    shellOptions: ["-s", "-i", "--shell", "--login"],
    empty: "nothing",
  },
  doas: { short: "a:C:Lnsu:", shellOptions: ["-s"], empty: "nothing" },
  flock: {
    short: "sxeunow:E:c:FhV",
    long: {
      shared: 0,
      exclusive: 0,
      unlock: 0,
      nonblock: 0,
      nb: 0,
      timeout: 1,
      wait: 1,
      "conflict-exit-code": 1,
      close: 0,
      command: 1,
      "no-fork": 0,
      verbose: 0,
      help: 0,
      version: 0,
    },
    operands: 1,
    script: ["-c", "--command"],
    empty: "nothing",
  },
  ionice: {
    short: "c:n:pPtuhV",
    long: { class: 1, classdata: 1, pid: 0, pgid: 0, ignore: 0, uid: 0, help: 0, version: 0 },
    none: ["-p", "-P", "-u", "--pid", "--pgid", "--uid"],
    empty: "nothing",
  },
  taskset: {
    short: "apchV",
    long: { "all-tasks": 0, pid: 0, "cpu-list": 0, help: 0, version: 0 },
    operands: 1,
    none: ["-p", "--pid"],
    empty: "nothing",
  },
  chrt: {
    short: "abdefimoprRT:P:D:vhV",
    long: {
      batch: 0,
      deadline: 0,
      fifo: 0,
      idle: 0,
      other: 0,
      rr: 0,
      "reset-on-fork": 0,
      "sched-runtime": 1,
      "sched-period": 1,
      "sched-deadline": 1,
      "all-tasks": 0,
      max: 0,
      pid: 0,
      verbose: 0,
      help: 0,
      version: 0,
    },
    operands: 1,
    none: ["-p", "--pid", "-m", "--max"],
    empty: "nothing",
  },
  unshare: {
    short: "m::u::i::n::p::U::C::T::frcR:w:S:G:l:hV",
    long: {
      mount: 2,
      uts: 2,
      ipc: 2,
      net: 2,
      pid: 2,
      user: 2,
      cgroup: 2,
      time: 2,
      fork: 0,
      "kill-child": 2,
      "mount-proc": 2,
      "mount-binfmt": 2,
      "map-user": 1,
      "map-users": 1,
      "map-group": 1,
      "map-groups": 1,
      "map-root-user": 0,
      "map-current-user": 0,
      "map-auto": 0,
      propagation: 1,
      setgroups: 1,
      "keep-caps": 0,
      setuid: 1,
      setgid: 1,
      root: 1,
      wd: 1,
      monotonic: 1,
      boottime: 1,
      "load-interp": 1,
      help: 0,
      version: 0,
    },
    empty: "shell",
  },
  nsenter: {
    short: "aS:G:t:m::u::i::n::p::U::C::T::r::w::W:eFZhV",
    long: {
      all: 0,
      target: 1,
      mount: 2,
      uts: 2,
      ipc: 2,
      net: 2,
      pid: 2,
      cgroup: 2,
      user: 2,
      time: 2,
      setuid: 1,
      setgid: 1,
      "preserve-credentials": 0,
      root: 2,
      wd: 2,
      wdns: 1,
      env: 0,
      "no-fork": 0,
      "follow-context": 0,
      "join-cgroup": 0,
      "user-parent": 0,
      "keep-caps": 0,
      help: 0,
      version: 0,
    },
    empty: "shell",
  },
  chroot: {
    short: "",
    long: { userspec: 1, groups: 1, "skip-chdir": 0, help: 0, version: 0 },
    operands: 1,
    empty: "shell",
  },
  strace: {
    short: "a:Ab:cCdDe:E:fFhiI:kno:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ",
    long: {
      output: 1,
      "output-append-mode": 0,
      "follow-forks": 0,
      "output-separately": 0,
      "summary-only": 0,
      summary: 0,
      "summary-wall-clock": 0,
      "string-limit": 1,
      trace: 1,
      "trace-path": 1,
      signal: 1,
      status: 1,
      quiet: 2,
      "decode-fds": 2,
      "decode-pids": 2,
      "no-abbrev": 0,
      "absolute-timestamps": 2,
      "relative-timestamps": 2,
      "syscall-times": 2,
      "syscall-number": 0,
      "instruction-pointer": 0,
      "stack-traces": 0,
      "strings-in-hex": 2,
      attach: 1,
      env: 1,
      user: 1,
      help: 0,
      version: 0,
      debug: 0,
    },
    empty: "nothing",
  },
  ltrace: { short: "a:A:bcCDe:fF:hiL:l:n:o:p:rs:SttTu:Vw:x:", empty: "nothing" },
  xargs: {
    short: "0a:d:E:e::I:i::L:l::n:oP:prs:tx",
    long: {
      null: 0,
      "arg-file": 1,
      delimiter: 1,
      eof: 2,
      replace: 2,
      "max-lines": 2,
      "max-args": 1,
      "open-tty": 0,
      "max-procs": 1,
      interactive: 0,
      "process-slot-var": 1,
      "no-run-if-empty": 0,
      "max-chars": 1,
      "show-limits": 0,
      verbose: 0,
      exit: 0,
      help: 0,
      version: 0,
    },
    empty: "nothing",
  },
  watch: {
    short: "bcCd::eghn:pq:rtwxv",
    long: {
      beep: 0,
      color: 0,
      "no-color": 0,
      differences: 2,
      errexit: 0,
      chgexit: 0,
      equexit: 1,
      interval: 1,
      precise: 0,
      "no-rerun": 0,
      "no-title": 0,
      "no-wrap": 0,
      exec: 0,
      help: 0,
      version: 0,
    },
    empty: "nothing",
  },
  command: { short: "pvV", none: ["-v", "-V"], empty: "nothing" },
  builtin: { short: "", empty: "nothing" },
  exec: { short: "cla:", empty: "nothing" },
  caffeinate: { short: "dimsut:w:", empty: "nothing" },
  unbuffer: { short: "p", empty: "nothing" },
};

/** Wrappers whose options are not tabled: a command right after the name is still exact. */
const PLAIN_WRAPPERS: ReadonlySet<string> = new Set([
  "busybox",
  "proxychains",
  "proxychains4",
  "torsocks",
  "firejail",
  "systemd-run",
  "pkexec",
  "prlimit",
  "setpriv",
  "numactl",
  "cgexec",
  "catchsegv",
  "valgrind",
  "dbus-run-session",
  "xvfb-run",
  "fakeroot",
  "eatmydata",
  "nocache",
  "chronic",
  "ifne",
  "rlwrap",
  "faketime",
  "tsp",
]);

/** Programs that run commands given to them through a shell or later; never decidable. */
const OPAQUE_RUNNERS: Readonly<Record<string, string>> = {
  parallel: "GNU parallel builds its commands from input and runs them through a shell",
  sem: "sem runs its command through a shell",
  at: "at runs commands read from standard input later",
  batch: "batch runs commands read from standard input later",
  sg: "sg runs its command through a shell",
  tmux: "tmux runs commands through a shell in another process",
  screen: "screen runs commands in another process",
};

/** Whether `name` is a program that runs another command. */
export function isWrapper(name: string): boolean {
  return name in SPECS || PLAIN_WRAPPERS.has(name) || name in OPAQUE_RUNNERS ||
    name in SU_LIKE;
}

/** Where the command run by wrapper `words[0]` (base name `name`) starts. */
export function wrapperInner(name: string, words: readonly OptionWord[]): Inner {
  if (name in OPAQUE_RUNNERS) {
    return { kind: "undecidable", reason: OPAQUE_RUNNERS[name], guess: true };
  }
  if (name in SU_LIKE) return suInner(name, words);
  if (name === "busybox") {
    if (words.length < 2 || words[1].text.startsWith("-")) return { kind: "none" };
    return { kind: "command", start: 1 };
  }
  const spec = SPECS[name];
  if (!spec) {
    if (words.length < 2) return { kind: "none" };
    if (words[1].literal && !words[1].text.startsWith("-")) return { kind: "command", start: 1 };
    return {
      kind: "undecidable",
      reason: `the options of ${name} are not known, so the command it runs cannot be found`,
      guess: true,
    };
  }
  let from = 1;
  if (name === "env" && words[1]?.literal && words[1].text === "-") from = 2;
  const parsed = parseOptions(words, from, spec);
  if (!parsed.ok) {
    return {
      kind: "undecidable",
      reason: `${name}: ${parsed.reason}, so the command it runs cannot be found`,
      guess: true,
    };
  }
  const names = parsed.options.map((o) => o.name);
  for (const o of parsed.options) {
    const why = spec.undecidable?.[o.name];
    if (why) return { kind: "undecidable", reason: why, guess: true };
  }
  if (spec.none && names.some((n) => spec.none!.includes(n))) return { kind: "none" };
  const script = spec.script && parsed.options.findIndex((o) => spec.script!.includes(o.name));
  if (script !== undefined && script >= 0) return scriptOf(parsed.options[script]);
  let i = parsed.next + (spec.operands ?? 0);
  if (spec.operands && i > words.length) return { kind: "none" };
  if (spec.script && i < words.length && words[i].literal && spec.script.includes(words[i].text)) {
    // `flock FILE -c 'script'`: flock reads -c after its file operand too.
    return i + 1 < words.length ? { kind: "script", script: words[i + 1] } : { kind: "none" };
  }
  if (spec.assignments) {
    for (; i < words.length && /^[^=\s]+=/.test(words[i].text); i++) {
      const variable = words[i].text.slice(0, words[i].text.indexOf("="));
      const why = codeVariable(variable);
      if (why) return { kind: "undecidable", reason: why, guess: true };
    }
  }
  if (i >= words.length) {
    const shell = spec.empty === "shell" ||
      (spec.shellOptions && names.some((n) => spec.shellOptions!.includes(n)));
    return shell ? { kind: "undecidable", reason: SHELL_STDIN, guess: false } : { kind: "none" };
  }
  if (name === "watch" && !names.includes("-x") && !names.includes("--exec")) {
    return { kind: "joined", start: i };
  }
  if (name === "xargs") {
    const replace = parsed.options.find((o) =>
      o.name === "-I" || o.name === "-i" || o.name === "--replace"
    );
    return {
      kind: "command",
      start: i,
      replace: replace
        ? (replace.name === "-I" ? replace.value : replace.value ?? "{}")
        : undefined,
    };
  }
  return { kind: "command", start: i };
}

/** An option's script (`flock -c`, `script --command=…`), separate or attached. */
function scriptOf(option: ParsedOption): Inner {
  if (option.valueWord) return { kind: "script", script: option.valueWord };
  if (option.value === undefined) return { kind: "none" };
  // An attached value comes from a literal option word, so it is literal too.
  return { kind: "script", script: { text: option.value, literal: true } };
}

/**
 * Programs that permute their arguments and run a shell: `-c` anywhere is a script (for `su`,
 * arguments after the user go to the shell too); without one the shell reads standard input.
 */
const SU_LIKE: Readonly<Record<string, true>> = { su: true, runuser: true, script: true };

/** The script of a {@linkcode SU_LIKE} program. */
function suInner(name: string, words: readonly OptionWord[]): Inner {
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (!w.literal) {
      return { kind: "undecidable", reason: `${name} has a computed argument`, guess: true };
    }
    const t = w.text;
    if (t === "--command" || t === "--session-command" || /^-[A-Za-z]*c$/.test(t)) {
      return i + 1 < words.length ? { kind: "script", script: words[i + 1] } : { kind: "none" };
    }
    const attached = /^--(?:session-)?command=([\s\S]*)$/.exec(t) ??
      /^-[A-Za-z]*?c([\s\S]+)$/.exec(t);
    if (attached) return { kind: "script", script: { text: attached[1], literal: true } };
    if (name === "runuser" && (t === "-u" || t === "--user")) {
      // `runuser -u USER [--] COMMAND…`
      let j = i + 2;
      if (words[j]?.text === "--") j++;
      return j < words.length ? { kind: "command", start: j } : { kind: "none" };
    }
  }
  return { kind: "undecidable", reason: SHELL_STDIN, guess: false };
}

/** Shells whose `-c` script is parsed as bash. */
export const BASH_LIKE_SHELLS: ReadonlySet<string> = new Set([
  "sh",
  "bash",
  "dash",
  "ash",
  "rbash",
]);
/** Shells with their own syntax: their scripts are parsed as bash for deny rules, never decided. */
export const OTHER_SHELLS: ReadonlySet<string> = new Set([
  "zsh",
  "ksh",
  "ksh93",
  "mksh",
  "pdksh",
  "yash",
  "fish",
  "csh",
  "tcsh",
  "elvish",
  "nu",
  "xonsh",
  "pwsh",
]);

/** What a shell invocation runs. */
export type ShellRun =
  | { kind: "script"; index: number }
  | { kind: "file"; index: number }
  | { kind: "undecidable"; reason: string };

/** Reads `bash`-style options to find the `-c` script or the script file. */
export function shellRun(words: readonly OptionWord[]): ShellRun {
  let command = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (!w.literal) return { kind: "undecidable", reason: "the shell's script is computed" };
    const t = w.text;
    if (t === "-" || t === "--") {
      if (command) return scriptOrMissing(words, i + 1);
      return i + 1 < words.length
        ? fileRun(words, i + 1)
        : { kind: "undecidable", reason: SHELL_STDIN };
    }
    if (t === "--rcfile" || t === "--init-file") {
      i++;
      continue;
    }
    if (t.startsWith("--")) continue; // --norc, --login, --posix …: no values
    if (/^[-+][A-Za-z]+$/.test(t)) {
      const letters = t.slice(1);
      if (letters.includes("s")) return { kind: "undecidable", reason: SHELL_STDIN };
      if (letters.includes("c")) command = true;
      // `-o NAME` and `-O NAME` take a value each.
      for (const c of letters) if (c === "o" || c === "O") i++;
      continue;
    }
    return command ? { kind: "script", index: i } : fileRun(words, i);
  }
  if (command) return { kind: "undecidable", reason: "the shell's -c script comes from input" };
  return { kind: "undecidable", reason: SHELL_STDIN };
}

function scriptOrMissing(words: readonly OptionWord[], i: number): ShellRun {
  return i < words.length
    ? { kind: "script", index: i }
    : { kind: "undecidable", reason: "the shell's -c script comes from input" };
}

function fileRun(words: readonly OptionWord[], i: number): ShellRun {
  const t = words[i].text;
  if (/^\/(dev|proc)\//.test(t)) {
    return { kind: "undecidable", reason: `the shell reads its script from ${t}` };
  }
  return { kind: "file", index: i };
}

/**
 * Variables whose value bash or the programs it starts run as code (prompts under `set -x`,
 * startup files, pagers, editors, git's config injection, preloaded libraries).
 */
const CODE_VARIABLES: ReadonlySet<string> = new Set([
  "PS0",
  "PS1",
  "PS2",
  "PS3",
  "PS4",
  "PROMPT_COMMAND",
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "BASH_ALIASES",
  "BASH_CMDS",
  "BASH_LOADABLES_PATH",
  "EXECIGNORE",
  "PAGER",
  "MANPAGER",
  "GIT_PAGER",
  "EDITOR",
  "VISUAL",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_EXTERNAL_DIFF",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_PROXY_COMMAND",
  "GIT_EXEC_PATH",
  "GIT_CONFIG",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_TEMPLATE_DIR",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "PERL5OPT",
  "PERL5LIB",
  "PYTHONSTARTUP",
  "PYTHONPATH",
  "NODE_OPTIONS",
  "RUBYOPT",
  "BROWSER",
  "LESSOPEN",
  "LESSCLOSE",
  "SHELL",
  "MAKEFLAGS",
]);

/** Why assigning `name` makes a command undecidable, or undefined when it does not. */
export function codeVariable(name: string): string | undefined {
  const bare = name.replace(/\[.*$/, "").replace(/\+$/, "");
  if (
    CODE_VARIABLES.has(bare) || bare.startsWith("GIT_CONFIG_KEY_") ||
    bare.startsWith("GIT_CONFIG_VALUE_") || bare.startsWith("BASH_FUNC_")
  ) {
    return `it sets ${bare}, whose value bash or the programs it starts may run as code`;
  }
  return undefined;
}

/**
 * Whether arithmetic text is only numbers and operators. Names are looked up and their values
 * evaluated as expressions in turn, so `a[$(cmd)]` reached through any name runs `cmd`.
 */
export function plainArithmetic(text: string): boolean {
  const numbers = text
    .replace(/\$[#?$!]|\$\{#[A-Za-z_][A-Za-z0-9_]*\}/g, "0")
    .replace(/(^|[^A-Za-z0-9_])[0-9][0-9A-Za-z_#@]*/g, "$10");
  return /^[0-9\s+\-*/%<>=!&|^~?:(),]*$/.test(numbers);
}

/** git `-c` keys that never name a program, hook or script to run. */
const SAFE_GIT_KEYS =
  /^(user\.(name|email|signingkey)|color\.[a-z.]+|advice\.[a-z]+|init\.defaultbranch|core\.(quotepath|autocrlf|safecrlf|abbrev|filemode|ignorecase|longpaths|precomposeunicode)|commit\.gpgsign|tag\.gpgsign|gc\.auto|safe\.directory|log\.[a-z]+|pull\.(rebase|ff)|push\.(default|autosetupremote)|merge\.conflictstyle|diff\.(renames|algorithm|noprefix|mnemonicprefix|colormoved|relative|context|statgraphwidth)|status\.[a-z]+|column\.ui|i18n\.[a-z]+|protocol\.version|http\.sslverify|fetch\.prune|rebase\.autosquash|rerere\.enabled|format\.pretty|pager\.[a-z-]+|maintenance\.auto|feature\.[a-z]+)$/i;

/** Why a `git -c KEY=VALUE` makes the command undecidable, or undefined when it does not. */
export function gitConfigRisk(assignment: string): string | undefined {
  const key = assignment.split("=")[0];
  if (/^pager\./i.test(key)) {
    // `pager.<cmd>` may be a program as well as a boolean.
    const value = assignment.slice(key.length + 1).toLowerCase();
    if (["", "true", "false", "yes", "no", "on", "off", "1", "0"].includes(value)) return undefined;
  } else if (SAFE_GIT_KEYS.test(key)) return undefined;
  return `git -c ${key} may name a command, alias or hook git runs`;
}

/** git options before the subcommand that take a separate value. */
const GIT_VALUE_OPTIONS: ReadonlySet<string> = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
  "--list-cmds",
  "--attr-source",
]);

/** What a git invocation's global options say about what it runs. */
export function gitGlobals(
  words: readonly OptionWord[],
): { subcommand?: number; undecidable?: string } {
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (!w.literal) return { undecidable: "git has a computed option or subcommand" };
    const t = w.text;
    if (!t.startsWith("-")) return { subcommand: i };
    if (t === "-c" || t.startsWith("-c")) {
      const value = t === "-c" ? words[i + 1]?.text ?? "" : t.slice(2);
      const why = gitConfigRisk(value);
      if (why) return { undecidable: why };
      if (t === "-c") i++;
      continue;
    }
    if (t.startsWith("--config-env")) {
      return { undecidable: "git --config-env sets configuration git may run as a command" };
    }
    if (t.startsWith("--exec-path=")) {
      return { undecidable: "git --exec-path changes where git finds its subcommands" };
    }
    if (GIT_VALUE_OPTIONS.has(t)) i++;
  }
  return {};
}

/** git subcommand options whose value is a shell command. */
export function gitRunners(
  words: readonly OptionWord[],
  sub: number,
): { scripts: number[]; commands: number[]; undecidable?: string } {
  const name = words[sub]?.text;
  const scripts: number[] = [];
  const commands: number[] = [];
  if (name === "rebase") {
    for (let i = sub + 1; i < words.length; i++) {
      const t = words[i].text;
      if (t === "-x" || t === "--exec") scripts.push(i + 1);
      else if (/^(-x.|--exec=)/.test(t)) {
        return { scripts, commands, undecidable: "git rebase --exec has an attached command" };
      }
    }
  } else if (name === "config") {
    // `git config alias.x '!cmd'` plants a command the next git call may run.
    const operands = words.slice(sub + 1).filter((w) => !w.text.startsWith("-"));
    if (operands.length >= 2) {
      const why = gitConfigRisk(`${operands[0].text}=${operands[1].text}`);
      if (why) return { scripts, commands, undecidable: why.replace("-c", "config") };
    }
  } else if (name === "bisect" && words[sub + 1]?.text === "run") {
    commands.push(sub + 2);
  } else if (name === "submodule" && words.slice(sub + 1).some((w) => w.text === "foreach")) {
    return { scripts, commands, undecidable: "git submodule foreach runs a shell command" };
  } else if (name === "filter-branch" || name === "filter-repo") {
    return { scripts, commands, undecidable: `git ${name} runs shell filters` };
  } else if (name === "difftool" || name === "mergetool") {
    return { scripts, commands, undecidable: `git ${name} runs an external tool` };
  }
  return { scripts: scripts.filter((i) => i < words.length), commands };
}

/**
 * Long and short spellings of the same option, per program, for deny rules: `rm --recursive`
 * is `rm -r`. Each maps an option token (`R`, `--recursive`) to canonical short letters.
 */
const OPTION_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  rm: {
    R: "r",
    "--recursive": "r",
    "--force": "f",
    "--interactive": "i",
    "--dir": "d",
    "--verbose": "v",
    "--one-file-system": "--one-file-system",
    "--no-preserve-root": "--no-preserve-root",
    "--preserve-root": "--preserve-root",
  },
  rmdir: { "--parents": "p", "--verbose": "v", "--ignore-fail-on-non-empty": "--ignore" },
  cp: { r: "R", "--recursive": "R", "--force": "f", "--archive": "a", "--no-clobber": "n" },
  mv: { "--force": "f", "--no-clobber": "n", "--interactive": "i" },
  ln: { "--force": "f", "--symbolic": "s" },
  chmod: { "--recursive": "R" },
  chown: { "--recursive": "R" },
  chgrp: { "--recursive": "R" },
  mkdir: { "--parents": "p" },
  git: {
    "--force": "f",
    "--delete": "d",
    "--dry-run": "n",
    "--all": "--all",
    "--hard": "--hard",
    "--mirror": "--mirror",
    "--force-with-lease": "--force-with-lease",
    D: "df",
    M: "mf",
  },
};

/** Programs whose single-dash options are whole words (`find -delete`), not letter groups. */
const WORD_OPTIONS: ReadonlySet<string> = new Set([
  "find",
  "go",
  "java",
  "javac",
  "gcc",
  "g++",
  "cc",
  "clang",
  "clang++",
  "ffmpeg",
  "terraform",
  "openssl",
  "xcodebuild",
  "dd",
]);

/**
 * The canonical tokens an option word stands for: letters of a short group, or the long name
 * (a unique abbreviation of a known long option counts as it).
 */
export function optionTokens(program: string, word: string): string[] {
  const aliases = OPTION_ALIASES[program] ?? {};
  if (word.startsWith("--")) {
    const name = word.split("=")[0];
    if (name in aliases) return [...canonical(aliases[name])];
    const expansions = Object.keys(aliases).filter((k) => k.startsWith("--") && k.startsWith(name));
    if (name.length > 2 && expansions.length) {
      return expansions.flatMap((k) => [...canonical(aliases[k])]);
    }
    return [name];
  }
  if (WORD_OPTIONS.has(program)) return [word.split("=")[0]];
  const out: string[] = [];
  for (const c of word.slice(1)) {
    if (!/[A-Za-z0-9]/.test(c)) break;
    out.push(...canonical(aliases[c] ?? c));
  }
  return out;
}

function canonical(token: string): string[] {
  return token.startsWith("--") ? [token] : [...token];
}
