/**
 * Options declared as data, in commander's own flag syntax (`-m, --model <name>`). The command
 * tree adds them to its commands (`options.ts`); the fast path of `reasonix run`
 * (`fast_run.ts`) reads argv with the same declarations without loading commander, and leaves
 * everything it does not fully understand to the tree.
 *
 * @module
 */

/** One option of a command, as data. */
export interface OptionSpec {
  /** commander's flags: `--json`, `-m, --model <name>` (no optional `[value]`, no `--no-`). */
  flags: string;
  /** The help line. */
  description: string;
  /** The values the option accepts, when they are a closed list. */
  choices?: readonly string[];
  /** Each use adds its value to a list instead of replacing the last one. */
  repeatable?: boolean;
  /** The key of an option this one cannot be given with. */
  conflicts?: string;
}

/** What the flags of an {@link OptionSpec} say. */
export interface OptionFlags {
  /** `-m`, when there is a short flag. */
  short?: string;
  /** `--model`. */
  long: string;
  /** The key the value is stored under, as commander names it: `--max-turns` → `maxTurns`. */
  key: string;
  /** Whether the option takes a value (`<name>`). */
  takesValue: boolean;
}

/** Reads the flags of `spec`; throws for a form the fast path does not handle. */
export function optionFlags(spec: OptionSpec): OptionFlags {
  const match = /^(?:(-\w), )?(--[a-z][a-z0-9-]*)(?: <[^>]+>)?$/.exec(spec.flags);
  if (!match || match[2].startsWith("--no-")) {
    throw new TypeError(`unsupported option flags "${spec.flags}"`);
  }
  const long = match[2];
  return {
    short: match[1],
    long,
    key: long.slice(2).replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
    takesValue: spec.flags.endsWith(">"),
  };
}

/** Arguments read by {@link readOptions}: the words, and the option values by key. */
export interface ReadOptions {
  words: string[];
  values: Record<string, string | string[] | true>;
}

/**
 * Reads `args` (what follows a command's name) with `specs` the way commander reads them, for
 * the common forms only: `--long value`, `--long=value`, `-s value`, flags, words anywhere, and
 * `--` before words that start with a dash. Returns undefined for anything else: an unknown or
 * bundled option (`-cr`), a missing value, a value outside its choices, conflicting options,
 * or a word that starts with a dash. Callers then let commander parse, which reports the
 * problem the same way as always.
 */
export function readOptions(
  args: readonly string[],
  specs: readonly OptionSpec[],
): ReadOptions | undefined {
  const known = specs.map((spec) => ({ spec, ...optionFlags(spec) }));
  const out: ReadOptions = { words: [], values: {} };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      out.words.push(...args.slice(i + 1));
      break;
    }
    // commander takes a lone `-` for a word too.
    if (!arg.startsWith("-") || arg === "-") {
      out.words.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const option = known.find((o) => o.long === name || o.short === name);
    if (!option) return undefined;
    if (!option.takesValue) {
      if (eq > 0) return undefined;
      out.values[option.key] = true;
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) return undefined;
    if (option.spec.choices && !option.spec.choices.includes(value)) return undefined;
    if (option.spec.repeatable) {
      const previous = out.values[option.key];
      out.values[option.key] = [...Array.isArray(previous) ? previous : [], value];
    } else {
      out.values[option.key] = value;
    }
  }
  for (const option of known) {
    const other = option.spec.conflicts;
    if (other && out.values[option.key] !== undefined && out.values[other] !== undefined) {
      return undefined;
    }
  }
  return out;
}
