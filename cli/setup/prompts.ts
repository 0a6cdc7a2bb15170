/**
 * The {@link Prompter} over `@clack/prompts`: the only module that imports the prompt library.
 * Loaded with a computed `import()` by `command.ts`, so `--version`, `run` and every other
 * command never load it.
 *
 * @module
 */
import * as clack from "@clack/prompts";
import { type Choice, type Prompter, SetupCancelled } from "./prompter.ts";

function answer<T>(value: T): Exclude<T, symbol> {
  if (clack.isCancel(value)) throw new SetupCancelled();
  return value as Exclude<T, symbol>;
}

/** A prompter on the process's terminal. */
export function terminalPrompter(): Prompter {
  return {
    intro: (title) => clack.intro(title),
    select: async <T extends string>(
      { message, options, initial }: { message: string; options: Choice<T>[]; initial?: T },
    ): Promise<T> => {
      const choices = options.map((o) => ({
        value: o.value as string,
        label: o.label,
        ...(o.hint === undefined ? {} : { hint: o.hint }),
      }));
      const initialValue = initial as string | undefined;
      // A long list (a gateway's hundreds of models) is searchable instead of scrolled.
      const picked = options.length > 15
        ? await clack.autocomplete({ message, options: choices, initialValue, maxItems: 12 })
        : await clack.select({ message, options: choices, initialValue });
      return answer(picked) as T;
    },
    text: async ({ message, initial, placeholder, validate }) =>
      answer(
        await clack.text({
          message,
          initialValue: initial,
          placeholder,
          validate: validate && ((value) => validate(value ?? "")),
        }),
      ),
    secret: async ({ message, validate }) =>
      answer(
        await clack.password({
          message,
          validate: validate && ((value) => validate(value ?? "")),
        }),
      ),
    confirm: async ({ message, initial }) =>
      answer(await clack.confirm({ message, initialValue: initial ?? true })),
    info: (text) => clack.log.info(text),
    warn: (text) => clack.log.warn(text),
    // Not the library's spinner: on Deno it leaves stdin unusable for the interactive UI that
    // may start right after the setup, and it exits with 0 on Ctrl-C.
    progress: (text) => {
      clack.log.step(`${text} …`);
      return (outcome, failed) => failed ? clack.log.error(outcome) : clack.log.success(outcome);
    },
    outro: (text) => clack.outro(text),
  };
}
