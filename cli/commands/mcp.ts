/**
 * `reasonix mcp add|remove|list|get|login|logout`.
 *
 * @module
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { lazyImport } from "../lazy.ts";
import { stripControl } from "../../plugins/mcp/text.ts";
import { action, type CliContext } from "./execute.ts";
import type { AddArgs, McpModule, McpRequest } from "./types.ts";

const FOOTER = `
Precedence for one name: ./reasonix.toml > ./.mcp.json > ~/.reasonix/config.toml.`;

function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/**
 * `mcp add`: options are read until the stdio command; everything after it is the server's
 * own command line (`-y`, `-e`, `--help` included), so the command's tail is never parsed. A
 * URL takes no arguments, so options may follow it. `--` ends the options too.
 */
class AddCommand extends Command {
  override parseOptions(args: string[]): { operands: string[]; unknown: string[] } {
    const takesValue = (arg: string) => {
      const option = this.options.find((o) => o.long === arg || o.short === arg);
      return option !== undefined && (option.required || option.optional);
    };
    let positionals = 0;
    let end = args.length;
    let tail: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (arg === "--") {
        end = i;
        tail = args.slice(i + 1);
        break;
      }
      if (arg.startsWith("-") && arg.length > 1) {
        if (takesValue(arg)) i++;
        continue;
      }
      positionals++;
      if (positionals === 2 && !isUrl(arg)) {
        end = i + 1;
        tail = args.slice(i + 1);
        break;
      }
    }
    const parsed = super.parseOptions(args.slice(0, end));
    // Unknown options stay errors; the server's arguments follow the name and command.
    if (parsed.unknown.length) {
      return { operands: parsed.operands, unknown: [...parsed.unknown, ...tail] };
    }
    return { operands: [...parsed.operands, ...tail], unknown: [] };
  }
}

const keyValue = (value: string, previous: Record<string, string> = {}) => {
  const eq = value.indexOf("=");
  if (eq <= 0) throw new InvalidArgumentError(`--env needs KEY=VALUE, got "${value}"`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
};

const header = (value: string, previous: Record<string, string> = {}) => {
  const colon = value.indexOf(":");
  if (colon <= 0) throw new InvalidArgumentError(`--header needs "Name: value", got "${value}"`);
  return { ...previous, [value.slice(0, colon).trim()]: value.slice(colon + 1).trim() };
};

const seconds = (value: string) => {
  const v = Number(value);
  if (!(v > 0)) throw new InvalidArgumentError("--startup-timeout must be a number of seconds > 0");
  return v;
};

const scopeOption = (about: string) =>
  new Option("-s, --scope <scope>", about).choices(["user", "project"]);

/** Adds `mcp` to `parent`. What the commands print drops control characters. */
export function defineMcp(parent: Command, context: CliContext): Command {
  // Declarations from project files and everything a server says may carry terminal escape
  // sequences; nothing these commands print passes them on.
  const ctx: CliContext = {
    ...context,
    io: {
      out: (t) => context.io.out(stripControl(t)),
      err: (t) => context.io.err(stripControl(t)),
    },
  };
  const run = async (request: McpRequest) => {
    const { runMcp } = await lazyImport<McpModule>("cli/mcp.ts");
    return await runMcp(request, ctx);
  };
  const mcp = parent
    .command("mcp")
    .summary("manage MCP servers")
    .description(
      "Manages MCP server declarations. A new server goes to the user config.toml unless " +
        "--scope project asks for the project reasonix.toml; editing an existing server " +
        "writes back to the file it is declared in.",
    )
    .addHelpText("after", FOOTER);

  const add = new AddCommand("add")
    .summary("declare a server (stdio command, or http/sse URL)")
    .description(
      "Declares a server: a stdio command, or an http/sse URL. Options go before the stdio " +
        "command; everything after it is passed to the server as its arguments (or put them " +
        "after --).",
    )
    .argument("<name>", "the server's name")
    .argument("<command-or-url>", "the stdio command, or the http(s) URL")
    .argument("[args...]", "the stdio command's arguments")
    .addOption(
      scopeOption(
        "user: ~/.reasonix/config.toml (default for a new server); project: ./reasonix.toml",
      ),
    )
    .addOption(
      new Option("-t, --transport <kind>", "default: http for a URL, stdio otherwise")
        .choices(["stdio", "http", "sse", "streamable-http"]),
    )
    .addOption(
      new Option(
        "-e, --env <KEY=VALUE>",
        "environment of a stdio server (repeatable; ${VAR} allowed)",
      )
        .argParser(keyValue),
    )
    .addOption(
      new Option(
        "-H, --header <header>",
        'header of an HTTP server, "Name: value" (repeatable; ${VAR} allowed)',
      )
        .argParser(header),
    )
    .addOption(
      new Option("--concurrency <mode>", "whether the server takes calls at the same time")
        .choices(["parallel", "serial"]),
    )
    .addOption(
      new Option("--startup-timeout <seconds>", "how long to wait for the server to start")
        .argParser(seconds),
    );
  mcp.addCommand(add);
  action(add, (name: string, target: string, args: string[], o: Record<string, unknown>) => {
    const transport = o.transport === "streamable-http" ? "http" : o.transport;
    const request: AddArgs = {
      name,
      target,
      args,
      scope: o.scope as AddArgs["scope"],
      transport: transport as AddArgs["transport"],
      env: (o.env ?? {}) as Record<string, string>,
      headers: (o.header ?? {}) as Record<string, string>,
      concurrency: o.concurrency as AddArgs["concurrency"],
      startupTimeout: o.startupTimeout as number | undefined,
    };
    return run({ command: "add", add: request });
  });

  action(
    mcp.command("remove").alias("rm")
      .description("remove a declaration; a lower one of the same name takes over")
      .argument("<name>", "the server's name")
      .addOption(scopeOption("remove it from this scope only")),
    (name: string, o: { scope?: "user" | "project" }) =>
      run({ command: "remove", name, scope: o.scope }),
  );
  action(
    mcp.command("list").alias("ls")
      .description("connect to every server and show its state")
      .option("--json", "print the states as JSON"),
    (o: { json?: boolean }) => run({ command: "list", json: o.json === true }),
  );
  action(
    mcp.command("get")
      .description("show one server: declaration, state, tools, prompts, resources")
      .argument("<name>", "the server's name"),
    (name: string) => run({ command: "get", name }),
  );
  action(
    mcp.command("login")
      .description("authorize an HTTP server with OAuth (opens your browser)")
      .argument("<name>", "the server's name"),
    (name: string) => run({ command: "login", name }),
  );
  action(
    mcp.command("logout")
      .description("forget a server's stored OAuth credentials")
      .argument("<name>", "the server's name"),
    (name: string) => run({ command: "logout", name }),
  );
  return mcp;
}
