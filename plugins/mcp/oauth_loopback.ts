/**
 * The loopback redirect receiver of the OAuth authorization-code flow (RFC 8252 §7.3): a
 * one-route HTTP server on 127.0.0.1 that hands the `code` of the expected `state` to the
 * waiting flow.
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";

/** The authorization server answered the redirect with an error, or nothing came in time. */
export class AuthorizationError extends ReasonixError {
  constructor(message: string, options?: ErrorOptions) {
    super("mcp_authorization", message, options);
    this.name = "AuthorizationError";
  }
}

const PAGE = (title: string) =>
  `<!doctype html><meta charset="utf-8"><title>Reasonix</title><p>${title}</p>`;

/** A running receiver. */
export class LoopbackReceiver {
  readonly redirectUrl: string;
  readonly #server: Deno.HttpServer;
  readonly #waiting = new Map<
    string,
    { resolve(code: string): void; reject(error: Error): void }
  >();

  private constructor(server: Deno.HttpServer, port: number) {
    this.#server = server;
    this.redirectUrl = `http://127.0.0.1:${port}/callback`;
  }

  /** Listens on 127.0.0.1: on `port` when given and free, else on any free port. */
  static start(opts: { port?: number } = {}): Promise<LoopbackReceiver> {
    const box: { receiver?: LoopbackReceiver } = {};
    const handler = (req: Request): Response => box.receiver!.#handle(req);
    const listen = (port: number) =>
      Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, handler);
    let server: Deno.HttpServer;
    try {
      server = listen(opts.port ?? 0);
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse) || !opts.port) throw error;
      server = listen(0);
    }
    box.receiver = new LoopbackReceiver(server, (server.addr as Deno.NetAddr).port);
    return Promise.resolve(box.receiver);
  }

  #handle(req: Request): Response {
    const url = new URL(req.url);
    if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
    const state = url.searchParams.get("state") ?? "";
    const waiter = this.#waiting.get(state);
    if (!waiter) {
      return new Response(PAGE("This authorization request is unknown or expired."), {
        status: 400,
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    }
    this.#waiting.delete(state);
    const error = url.searchParams.get("error");
    const code = url.searchParams.get("code");
    if (error || !code) {
      // Only the registered error code is repeated; descriptions may echo attacker input.
      const kind = /^[a-z_]{1,64}$/.test(error ?? "") ? error : "no_code";
      waiter.reject(new AuthorizationError(`the authorization server answered: ${kind}`));
      return new Response(PAGE("Authorization failed. You can close this window."), {
        status: 400,
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    }
    waiter.resolve(code);
    return new Response(PAGE("Authorization complete. You can close this window."), {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  }

  /** Resolves with the code sent for `state`; rejects on an error answer, timeout or abort. */
  expect(state: string, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        this.#waiting.delete(state);
      };
      const onAbort = () => {
        done();
        reject(opts.signal!.reason);
      };
      const timer = setTimeout(() => {
        done();
        reject(new AuthorizationError("no authorization arrived in time"));
      }, opts.timeoutMs);
      if (opts.signal?.aborted) return onAbort();
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(state, {
        resolve: (code) => {
          done();
          resolve(code);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
    });
  }

  /** Stops listening and fails any waiting flow. */
  async close(): Promise<void> {
    for (const waiter of this.#waiting.values()) {
      waiter.reject(new AuthorizationError("the authorization was abandoned"));
    }
    this.#waiting.clear();
    await this.#server.shutdown();
  }
}
