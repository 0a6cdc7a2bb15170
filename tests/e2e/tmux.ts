/**
 * Drives a program in a real terminal for end-to-end tests: tmux runs it on a private server
 * socket, `send-keys` types, `capture-pane` reads the screen.
 *
 * @module
 */

/** A detached tmux session on its own server. */
export class TmuxSession {
  readonly socket: string;
  readonly name = "main";

  private constructor(socket: string) {
    this.socket = socket;
  }

  /** Whether tmux is installed. */
  static async available(): Promise<boolean> {
    try {
      const out = await new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" })
        .output();
      return out.success;
    } catch {
      return false;
    }
  }

  /**
   * Starts `argv` in a `width`×`height` terminal in `cwd`. After the program exits the pane
   * prints `[exit N]` and stays, so the test can read the final screen.
   */
  static async start(
    argv: string[],
    opts: { cwd: string; width?: number; height?: number },
  ): Promise<TmuxSession> {
    const session = new TmuxSession(`reasonix-e2e-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`);
    const quoted = argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
    const script = `${quoted}; echo "[exit $?]"; sleep 600`;
    await session.#tmux(
      "new-session",
      "-d",
      "-s",
      session.name,
      "-x",
      String(opts.width ?? 100),
      "-y",
      String(opts.height ?? 40),
      "-c",
      opts.cwd,
      "sh",
      "-c",
      script,
    );
    return session;
  }

  async #tmux(...args: string[]): Promise<string> {
    const out = await new Deno.Command("tmux", {
      // `-u` and a UTF-8 locale: box drawing and CJK must survive whatever locale CI has.
      args: ["-u", "-L", this.socket, "-f", "/dev/null", ...args],
      env: { LANG: "C.UTF-8", LC_ALL: "C.UTF-8" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      throw new Error(`tmux ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
    }
    return text;
  }

  /** The visible screen plus `history` lines of scrollback, as plain text. */
  capture(history = 200): Promise<string> {
    return this.#tmux("capture-pane", "-p", "-t", this.name, "-S", String(-history));
  }

  /** Types `text` literally (no key names). */
  async type(text: string): Promise<void> {
    await this.#tmux("send-keys", "-t", this.name, "-l", text);
  }

  /** Sends key names such as `Enter`, `C-c`, `Escape`, `Down`. */
  async keys(...keys: string[]): Promise<void> {
    await this.#tmux("send-keys", "-t", this.name, ...keys);
  }

  /** Waits until the screen matches `pattern`; returns the screen. Throws with it on timeout. */
  async waitFor(pattern: RegExp | string, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    while (Date.now() < deadline) {
      screen = await this.capture();
      if (typeof pattern === "string" ? screen.includes(pattern) : pattern.test(screen)) {
        return screen;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${pattern}; the screen was:\n${screen}`);
  }

  /** Kills the session and its server. */
  async kill(): Promise<void> {
    await this.#tmux("kill-server").catch(() => "");
  }
}
