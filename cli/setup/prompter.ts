/**
 * What the interactive setup asks through. The flow (`flow.ts`) only sees this interface; the
 * one implementation over the prompt library is `prompts.ts`, imported only when a terminal
 * session asks, so no other path loads the library.
 *
 * @module
 */

/** One choice of a list. */
export interface Choice<T extends string> {
  value: T;
  label: string;
  hint?: string;
}

/** Asks the user; each method throws {@link SetupCancelled} when the user cancels. */
export interface Prompter {
  intro(title: string): void;
  select<T extends string>(q: { message: string; options: Choice<T>[]; initial?: T }): Promise<T>;
  text(q: {
    message: string;
    initial?: string;
    placeholder?: string;
    validate?: (value: string) => string | undefined;
  }): Promise<string>;
  /** Masked input: the value is never echoed. */
  secret(q: { message: string; validate?: (value: string) => string | undefined }): Promise<string>;
  confirm(q: { message: string; initial?: boolean }): Promise<boolean>;
  info(text: string): void;
  warn(text: string): void;
  /** Shows `text` with a spinner until the returned function is called with the outcome. */
  progress(text: string): (outcome: string, failed?: boolean) => void;
  outro(text: string): void;
}

/** The user cancelled a prompt (Ctrl-C, Escape). */
export class SetupCancelled extends Error {
  constructor() {
    super("setup cancelled");
    this.name = "SetupCancelled";
  }
}
