/**
 * The ACP agent on the official SDK's agent side (`agent()` of `@agentclientprotocol/sdk`):
 * its handlers call {@linkcode AcpServer}, which reaches the client through an
 * {@linkcode AcpPeer} over the same connection. The one module that touches the SDK at run
 * time.
 *
 * @module
 */
import * as acp from "@agentclientprotocol/sdk";
import { AcpError, type AcpPeer, AcpServer, type AcpServerOptions } from "./server.ts";

/** Options of {@linkcode serveAcp}. */
export interface ServeAcpOptions extends Omit<AcpServerOptions, "peer"> {
  /** Where protocol messages go (the real stdout). */
  output: WritableStream<Uint8Array>;
  /** Where they come from (stdin). */
  input: ReadableStream<Uint8Array>;
}

/** An error for the JSON-RPC answer: the SDK's kind for our protocol errors. */
function toRequestError(error: unknown): unknown {
  return error instanceof AcpError
    ? new acp.RequestError(error.code, error.message, error.data)
    : error;
}

function guarded<P, R>(handler: (params: P) => R | Promise<R>) {
  return async ({ params }: { params: P }): Promise<R> => {
    try {
      return await handler(params);
    } catch (error) {
      throw toRequestError(error);
    }
  };
}

/** Serves one client until the connection closes; then closes every session and host. */
export async function serveAcp(opts: ServeAcpOptions): Promise<void> {
  // Set once the connection is open, before any handler runs.
  const link: { client?: acp.AgentContext } = {};
  const peer: AcpPeer = {
    update: (params) => link.client!.notify(acp.methods.client.session.update, params),
    requestPermission: (params, o) =>
      link.client!.request(acp.methods.client.session.requestPermission, params, {
        cancellationSignal: o.signal,
      }),
  };
  const server = new AcpServer({ ...opts, peer });
  const m = acp.methods.agent;
  const app = acp.agent({ name: "reasonix" })
    .onRequest(m.initialize, guarded((p) => server.initialize(p)))
    .onRequest(
      m.authenticate,
      guarded(async (p) => {
        await server.authenticate(p);
        return {};
      }),
    )
    .onRequest(m.session.new, guarded((p) => server.newSession(p)))
    .onRequest(m.session.load, guarded((p) => server.loadSession(p)))
    .onRequest(m.session.list, guarded((p) => server.listSessions(p)))
    .onRequest(
      m.session.setMode,
      guarded((p) => {
        server.setMode(p);
        return {};
      }),
    )
    .onRequest(m.session.prompt, guarded((p) => server.prompt(p)))
    .onNotification(m.session.cancel, ({ params }) => server.cancel(params));
  const connection = app.connect(acp.ndJsonStream(opts.output, opts.input));
  link.client = connection.client;
  try {
    await connection.closed;
  } finally {
    await server.close();
  }
}
