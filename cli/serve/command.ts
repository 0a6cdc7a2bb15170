/**
 * `reasonix serve` and `reasonix serve --hash-password`: loaded lazily by
 * `cli/commands/serve.ts`, so no other command pays for the web app, Hono or the page.
 *
 * @module
 */
import { commandSources, loadCustomCommands } from "../../core/commands/mod.ts";
import { reasonixHome } from "../../core/config/mod.ts";
import { ReasonixError } from "../../errors.ts";
import { EXIT_OK, EXIT_USAGE } from "../exit_codes.ts";
import { type CliHost, openHost } from "../host.ts";
import { HostBackend } from "../ui/backend.ts";
import { UiApprovalBroker } from "../ui/broker.ts";
import { mcpView } from "../ui/mcp_view.ts";
import { BUILTIN_NAMES } from "../ui/slash.ts";
import { promptProjectTrust, terminalIo } from "../ui/trust_prompt.ts";
import { ServeApp } from "./app.ts";
import { ServeError } from "./errors.ts";
import type { ServeCommandOptions } from "./options.ts";
import { hashPassword, randomSecret } from "./password.ts";
import { serveSettings } from "./settings.ts";

/** Where `serve` writes; tests pass their own. */
export interface ServeIo {
  out(text: string): void;
  err(text: string): void;
}

const CONSOLE: ServeIo = { out: (t) => console.log(t), err: (t) => console.error(t) };

export type { ServeCommandOptions };

/** A running server, for tests and the command. */
export interface RunningServe {
  /** The URL to open: with the token of a token made at start, once. */
  url: string;
  /** Where it listens, e.g. `http://127.0.0.1:8788`. */
  origin: string;
  port: number;
  app: ServeApp;
  /** Stops listening, cancels a running turn, closes the agent (not the host). */
  close(): Promise<void>;
}

/** Starts the web app on `host` (whose configuration holds `[serve]`); throws `ServeError`. */
export async function startServe(
  host: CliHost,
  opts: Omit<ServeCommandOptions, "open" | "model" | "permissions"> & { model?: string },
): Promise<RunningServe> {
  if ((opts.cert === undefined) !== (opts.key === undefined)) {
    throw new ServeError("--cert and --key go together");
  }
  const settings = serveSettings(host.config.serve, {
    host: opts.host,
    port: opts.port,
    tls: opts.cert !== undefined,
  });
  const token = settings.authMode === "token" ? settings.token ?? randomSecret(24) : undefined;
  const broker = new UiApprovalBroker();
  const mcp = host.mcp && mcpView(host.mcp);
  const backend = await HostBackend.create({ host, broker, mcp }, { model: opts.model });
  let server: Deno.HttpServer<Deno.NetAddr> | undefined;
  try {
    const loaded = await loadCustomCommands(
      commandSources({
        workspaceRoot: host.workspaceRoot,
        home: host.home,
        workspace: host.workspace,
      }),
      { reserved: BUILTIN_NAMES },
    );
    const app = new ServeApp({ backend, broker, settings, token, commands: loaded.commands, mcp });
    const tls = opts.cert !== undefined
      ? { cert: await Deno.readTextFile(opts.cert), key: await Deno.readTextFile(opts.key!) }
      : {};
    let port = settings.port;
    server = Deno.serve({
      hostname: settings.host,
      port: settings.port,
      ...tls,
      onListen: (addr) => port = addr.port,
    }, (req, info) => app.fetch(req, { peer: (info.remoteAddr as Deno.NetAddr).hostname, port }));
    port = server.addr.port;
    const scheme = settings.tls ? "https" : "http";
    const name = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
    const shown = name === "0.0.0.0" || name === "[::]" ? "127.0.0.1" : name;
    const origin = `${scheme}://${shown}:${port}`;
    const url = token && !settings.token
      ? `${origin}/login?token=${encodeURIComponent(token)}`
      : `${origin}/`;
    const running = server;
    return {
      url,
      origin,
      port,
      app,
      close: async () => {
        await running.shutdown();
        await app.close();
        await backend.dispose();
      },
    };
  } catch (error) {
    await server?.shutdown();
    await backend.dispose();
    throw error;
  }
}

/** Runs `reasonix serve` until Ctrl-C; returns the exit code. */
export async function serveCommand(
  opts: ServeCommandOptions,
  io: ServeIo = CONSOLE,
): Promise<number> {
  let host: CliHost | undefined;
  let running: RunningServe | undefined;
  try {
    const env = Deno.env.toObject();
    // Asked in the terminal that started the server, before anything of the project starts,
    // as the interactive session asks. Without a terminal (a service), untrusted declarations
    // are skipped with a warning, as in a headless run.
    const trust = opts.permissions.trustProject || !Deno.stdin.isTerminal()
      ? undefined
      : await promptProjectTrust({ home: reasonixHome(env), cwd: Deno.cwd(), io: terminalIo() });
    host = await openHost({
      cwd: Deno.cwd(),
      env,
      flags: { model: opts.model, ...opts.permissions },
      trustSession: trust?.session,
      trustSkipped: trust?.skipped,
    });
    running = await startServe(host, opts);
  } catch (error) {
    await host?.close();
    if (error instanceof ReasonixError || (error as Error)?.name === "AddrInUse") {
      io.err(`reasonix serve: ${(error as Error).message}`);
      return EXIT_USAGE;
    }
    throw error;
  }
  // Listening for Ctrl-C before the address is out: a quick stop still winds down cleanly.
  const stopped = Promise.withResolvers<void>();
  const stop = () => stopped.resolve();
  Deno.addSignalListener("SIGINT", stop);
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", stop);
  for (const warning of host.warnings) io.err(`warning: ${warning}`);
  const mode = host.config.serve?.auth_mode ?? "token";
  io.err(`Reasonix is serving ${host.workspaceRoot} at ${running.origin}/ (auth: ${mode}).`);
  if (running.url.includes("token=")) {
    io.err("Open this address to log in (it holds the access token; shown once):");
  }
  io.out(running.url);
  if (opts.open) openBrowser(running.url);
  await stopped.promise;
  Deno.removeSignalListener("SIGINT", stop);
  if (Deno.build.os !== "windows") Deno.removeSignalListener("SIGTERM", stop);
  io.err("Stopping.");
  await running.close();
  await host.close();
  return EXIT_OK;
}

function openBrowser(url: string): void {
  const argv = Deno.build.os === "darwin"
    ? ["open", url]
    : Deno.build.os === "windows"
    ? ["cmd", "/c", "start", "", url]
    : ["xdg-open", url];
  try {
    new Deno.Command(argv[0], { args: argv.slice(1), stdout: "null", stderr: "null" }).spawn();
  } catch {
    // No opener: the address is printed anyway.
  }
}

/** Reads a line from a terminal without echoing it. */
async function readHidden(prompt: string, io: ServeIo): Promise<string> {
  io.err(prompt);
  Deno.stdin.setRaw(true);
  const bytes: number[] = [];
  const buf = new Uint8Array(64);
  try {
    outer: while (true) {
      const n = await Deno.stdin.read(buf);
      if (n === null) break;
      for (const b of buf.subarray(0, n)) {
        if (b === 13 || b === 10) break outer;
        if (b === 3) throw new ServeError("cancelled");
        if (b === 127 || b === 8) bytes.pop();
        else bytes.push(b);
      }
    }
  } finally {
    Deno.stdin.setRaw(false);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/**
 * `reasonix serve --hash-password`: reads a password (from a terminal without echo, twice;
 * otherwise the first line of stdin) and prints its hash for `[serve] password_hash`.
 */
export async function hashPasswordCommand(io: ServeIo = CONSOLE): Promise<number> {
  let password: string;
  try {
    if (Deno.stdin.isTerminal()) {
      password = await readHidden("Password (not shown): ", io);
      const again = await readHidden("Again: ", io);
      if (again !== password) throw new ServeError("the passwords differ");
    } else {
      const text = await new Response(Deno.stdin.readable).text();
      password = text.split(/\r?\n/)[0];
    }
    if (password.length < 8) throw new ServeError("a password needs at least 8 characters");
  } catch (error) {
    if (!(error instanceof ServeError)) throw error;
    io.err(`reasonix serve: ${error.message}`);
    return EXIT_USAGE;
  }
  io.out(await hashPassword(password));
  io.err(
    'Put it in ~/.reasonix/config.toml as [serve] password_hash = "…" with auth_mode = "password".',
  );
  return EXIT_OK;
}
