/**
 * `reasonix serve [--port N] [--host ADDR] [--open]` and `reasonix serve --hash-password`.
 * The web app loads only when the command runs (`cli/serve/command.ts`).
 *
 * @module
 */
import { type Command, InvalidArgumentError } from "commander";
import { lazyImport } from "../lazy.ts";
import { permissionFlags } from "../permission_flags.ts";
import type { ServeCommandOptions } from "../serve/options.ts";
import { action, type CliContext } from "./execute.ts";
import { addPermissionOptions } from "./options.ts";

/** `cli/serve/command.ts`. */
interface ServeModule {
  serveCommand(opts: ServeCommandOptions): Promise<number>;
  hashPasswordCommand(): Promise<number>;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new InvalidArgumentError(`a port is a whole number 0-65535, got "${value}"`);
  }
  return n;
}

/** Adds `serve` to `parent`. */
export function defineServe(parent: Command, _ctx: CliContext): Command {
  const serve = parent
    .command("serve")
    .summary("use Reasonix from a browser")
    .description(
      "Starts the browser front end for this workspace (127.0.0.1:8788 by default). " +
        "It asks for a token, printed once as the address to open, unless [serve] says " +
        "otherwise. See docs/SERVE.md.",
    )
    .option("--port <n>", "the port to listen on (0: any free port)", port)
    .option("--host <addr>", "the address to listen on (non-loopback needs token or password)")
    .option("--open", "open the address in the default browser")
    .option("--cert <file>", "serve HTTPS with this PEM certificate (with --key)")
    .option("--key <file>", "the PEM private key of --cert")
    .option("-m, --model <name>", "the model: provider, model, or provider/model")
    .option("--hash-password", "read a password from stdin and print its [serve] password_hash");
  addPermissionOptions(serve);
  action(serve, async (options: Record<string, unknown>) => {
    const mod = await lazyImport<ServeModule>("cli/serve/command.ts");
    if (options.hashPassword) return await mod.hashPasswordCommand();
    return await mod.serveCommand({
      host: options.host as string | undefined,
      port: options.port as number | undefined,
      open: options.open === true,
      cert: options.cert as string | undefined,
      key: options.key as string | undefined,
      model: options.model as string | undefined,
      permissions: permissionFlags(options),
    });
  });
  return serve;
}
