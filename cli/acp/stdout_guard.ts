/**
 * Keeps stdout for protocol messages. While `reasonix acp` runs, stdout is the JSON-RPC
 * channel to the editor: one stray line (a library's `console.log`, a debug print) would be
 * read as a broken message and can end the connection. The guard takes the real stdout for
 * the protocol and sends every other write to stderr.
 *
 * @module
 */

/** What {@linkcode guardStdout} hands back. */
export interface StdoutGuard {
  /** The real stdout, for protocol messages only. */
  readonly protocol: WritableStream<Uint8Array>;
  /** Puts console and `Deno.stdout` back as they were. */
  restore(): void;
}

type Patchable = Record<string, unknown>;

/**
 * Routes `console.log`/`info`/`debug`/`dir`/`table` and writes to `Deno.stdout` to stderr, and
 * returns the real stdout as a stream for the protocol.
 */
export function guardStdout(): StdoutGuard {
  const stdout = Deno.stdout;
  const realWrite = stdout.write.bind(stdout);
  const protocol = new WritableStream<Uint8Array>({
    async write(chunk) {
      let done = 0;
      while (done < chunk.length) done += await realWrite(chunk.subarray(done));
    },
  });

  const restores: (() => void)[] = [];
  const patch = (target: Patchable, key: string, value: PropertyDescriptor) => {
    const own = Object.getOwnPropertyDescriptor(target, key);
    Object.defineProperty(target, key, { configurable: true, ...value });
    restores.push(() => {
      if (own) Object.defineProperty(target, key, own);
      else delete target[key];
    });
  };
  const c = console as unknown as Patchable;
  for (const key of ["log", "info", "debug", "dir", "table", "dirxml"]) {
    // console.error writes to stderr with the same formatting.
    patch(c, key, { writable: true, value: (...args: unknown[]) => console.error(...args) });
  }
  const s = stdout as unknown as Patchable;
  const stderr = Deno.stderr;
  patch(s, "write", { writable: true, value: (p: Uint8Array) => stderr.write(p) });
  patch(s, "writeSync", { writable: true, value: (p: Uint8Array) => stderr.writeSync(p) });
  patch(s, "writable", { get: () => stderr.writable });
  return {
    protocol,
    restore: () => {
      for (const restore of restores.reverse()) restore();
      restores.length = 0;
    },
  };
}
