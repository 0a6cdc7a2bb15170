/**
 * `reasonix trust [status|list|grant|revoke]`: what the project files of this workspace
 * declare that needs trust (MCP servers, loosening settings), and the user's grants in
 * `<home>/trust.json`.
 *
 * @module
 */
import { resolve } from "node:path";
import {
  ConfigError,
  printable,
  reasonixHome,
  type TrustGrant,
  TrustStore,
  workspaceKey,
} from "../core/config/mod.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import {
  declarationPlace,
  declarationTitle,
  describeDeclaration,
  type ProjectReview,
  reviewProject,
  type TrustItem,
} from "./project_trust.ts";

const TRUST_USAGE = `Usage: reasonix trust [command]

Project files (./reasonix.toml, ./.mcp.json) are untrusted input: a cloned repository, a
git pull or the model can write them. The MCP servers they declare start, their loosening
settings ([permissions].allow, [sandbox].allow_write, ...) apply, and a provider endpoint they
set is used, only once you trusted that exact declaration in this workspace. Any change to a
declaration voids its trust.

Commands:
  status                 show what this workspace declares and what is trusted (default)
  list [--json]          every workspace with its trusted declarations
  grant --all | NAME...  trust the current declarations of this workspace: NAME is an MCP
                         server or provider name, or "settings" for the loosening settings
  revoke --all | NAME... [--workspace <dir>]
                         forget trust in this workspace (or in <dir>)

A single run can trust the project without recording it: reasonix run --trust-project "…".
Grants are stored in ~/.reasonix/trust.json (REASONIX_HOME overrides).
`;

class TrustUsageError extends Error {}

interface Io {
  out(text: string): void;
  err(text: string): void;
}

const defaultIo: Io = {
  out: (t) => console.log(t),
  err: (t) => console.error(t),
};

interface Ctx {
  cwd: string;
  home: string;
  io: Io;
  store: TrustStore;
}

function grantTitle(g: TrustGrant): string {
  if (g.kind === "mcp_server") return `MCP server "${printable(g.name)}"`;
  if (g.kind === "provider") return `provider "${printable(g.name)}"`;
  return "settings";
}

function itemLines(review: ProjectReview, item: TrustItem, state?: string): string[] {
  const d = item.declaration;
  const head = `${declarationTitle(d)} (${declarationPlace(review.workspace, d)})` +
    (state ? `: ${state}` : "");
  return [head, ...describeDeclaration(d, "    ")];
}

async function statusCommand(argv: string[], ctx: Ctx): Promise<number> {
  if (argv.length) throw new TrustUsageError(`status takes no argument ${argv[0]}`);
  const review = await reviewProject(ctx);
  for (const w of review.warnings) ctx.io.err(`warning: ${w}`);
  ctx.io.out(`Workspace ${printable(review.workspace)}`);
  if (review.items.length === 0) {
    ctx.io.out(
      "Its project files declare no MCP servers and no loosening settings; nothing needs trust.",
    );
    return EXIT_OK;
  }
  for (const item of review.items) {
    for (const line of itemLines(review, item, item.stored ? "trusted" : "not trusted")) {
      ctx.io.out(`  ${line}`);
    }
  }
  const pending = review.items.filter((i) => !i.stored);
  if (pending.length) {
    ctx.io.out(
      `\nTrust ${pending.length === 1 ? "it" : "them"} with: reasonix trust grant ${
        pending.map((i) => i.declaration.name).join(" ")
      }`,
    );
  }
  const current = new Set(review.items.map((i) => i.hash));
  const stale = ((await ctx.store.read()).workspaces
    .find((w) => w.workspace === review.workspace)?.grants ?? [])
    .filter((g) => !current.has(g.hash));
  if (stale.length) {
    ctx.io.out(
      `\n${stale.length} earlier grant(s) no longer match a declaration (it changed or is ` +
        `gone): ${
          stale.map((g) => printable(g.name)).join(", ")
        }; \`reasonix trust revoke NAME\` forgets them`,
    );
  }
  return EXIT_OK;
}

async function listCommand(argv: string[], ctx: Ctx): Promise<number> {
  const json = argv.includes("--json");
  const unknown = argv.filter((a) => a !== "--json");
  if (unknown.length) throw new TrustUsageError(`list takes no argument ${unknown[0]}`);
  const snapshot = await ctx.store.read();
  if (snapshot.warning) ctx.io.err(`warning: ${snapshot.warning}`);
  if (json) {
    ctx.io.out(JSON.stringify({ workspaces: snapshot.workspaces }, null, 2));
    return EXIT_OK;
  }
  if (snapshot.workspaces.length === 0) {
    ctx.io.out(`No workspace is trusted (${ctx.store.path} holds no grants).`);
    return EXIT_OK;
  }
  for (const w of snapshot.workspaces) {
    ctx.io.out(printable(w.workspace));
    for (const g of w.grants) {
      const what = grantTitle(g);
      ctx.io.out(`  ${what} (${printable(g.file)}), granted ${g.granted.slice(0, 10)}`);
      ctx.io.out(`    ${printable(g.summary)}`);
    }
  }
  return EXIT_OK;
}

/** `--all` or names, and any other options the command accepts. */
function parseSelection(
  argv: string[],
  command: string,
  options: Record<string, (value: string) => void> = {},
): { all: boolean; names: string[] } {
  let all = false;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    if (flag === "--all" && inline === undefined) all = true;
    else if (options[flag]) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new TrustUsageError(`${flag} needs a value`);
      options[flag](value);
    } else if (arg.startsWith("-")) throw new TrustUsageError(`unknown option ${arg}`);
    else names.push(arg);
  }
  if (all && names.length) {
    throw new TrustUsageError(`${command} takes either --all or names, not both`);
  }
  if (!all && names.length === 0) {
    throw new TrustUsageError(`${command} needs --all or the name of what to ${command}`);
  }
  return { all, names };
}

async function grantCommand(argv: string[], ctx: Ctx): Promise<number> {
  const { all, names } = parseSelection(argv, "grant");
  const review = await reviewProject(ctx);
  for (const w of review.warnings) ctx.io.err(`warning: ${w}`);
  if (review.items.length === 0) {
    ctx.io.err(
      `reasonix trust: ${
        printable(review.workspace)
      } declares no MCP servers and no loosening settings; there is nothing to trust`,
    );
    return all ? EXIT_OK : EXIT_FAILURE;
  }
  const declared = [...new Set(review.items.map((i) => i.declaration.name))];
  const missing = names.filter((n) => !declared.includes(n));
  if (missing.length) {
    ctx.io.err(
      `reasonix trust: ${missing.map((n) => `"${printable(n)}"`).join(", ")} ` +
        `${missing.length === 1 ? "is" : "are"} not declared in this workspace; it declares: ` +
        declared.map(printable).join(", "),
    );
    return EXIT_FAILURE;
  }
  const chosen = review.items.filter((i) => all || names.includes(i.declaration.name));
  const fresh = chosen.filter((i) => !i.stored);
  for (const item of chosen.filter((i) => i.stored)) {
    ctx.io.out(`already trusted: ${itemLines(review, item)[0]}`);
  }
  if (fresh.length) await ctx.store.grant(review.workspace, fresh.map((i) => i.declaration));
  for (const item of fresh) {
    const [head, ...details] = itemLines(review, item);
    ctx.io.out(`trusted ${head}`);
    for (const line of details) ctx.io.out(line);
  }
  if (fresh.length) ctx.io.out(`in ${printable(review.workspace)} (stored in ${ctx.store.path})`);
  return EXIT_OK;
}

async function revokeCommand(argv: string[], ctx: Ctx): Promise<number> {
  let dir: string | undefined;
  const { all, names } = parseSelection(argv, "revoke", { "--workspace": (v) => dir = v });
  const workspace = await workspaceKey(resolve(ctx.cwd, dir ?? "."));
  const removed = await ctx.store.revoke(workspace, all ? undefined : names);
  const missing = names.filter((n) => !removed.some((g) => g.name === n));
  for (const g of removed) {
    const what = grantTitle(g);
    ctx.io.out(`revoked ${what} (${printable(g.file)}): ${printable(g.summary)}`);
  }
  if (missing.length) {
    ctx.io.err(
      `reasonix trust: nothing named ${
        missing.map((n) => `"${printable(n)}"`).join(", ")
      } is trusted in ${printable(workspace)} (see reasonix trust list)`,
    );
    return EXIT_FAILURE;
  }
  if (removed.length === 0) ctx.io.out(`Nothing was trusted in ${printable(workspace)}.`);
  return EXIT_OK;
}

/** Runs `reasonix trust …` and returns the exit code. */
export async function trustCommand(
  argv: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; io?: Io } = {},
): Promise<number> {
  const io = opts.io ?? defaultIo;
  const [sub, ...rest] = argv;
  if (
    sub === "-h" || sub === "--help" || sub === "help" || rest.includes("--help") ||
    rest.includes("-h")
  ) {
    io.out(TRUST_USAGE);
    return EXIT_OK;
  }
  try {
    const env = opts.env ?? Deno.env.toObject();
    const home = reasonixHome(env);
    const ctx: Ctx = { cwd: opts.cwd ?? Deno.cwd(), home, io, store: new TrustStore(home) };
    switch (sub) {
      case undefined:
      case "status":
        return await statusCommand(rest, ctx);
      case "list":
      case "ls":
        return await listCommand(rest, ctx);
      case "grant":
        return await grantCommand(rest, ctx);
      case "revoke":
        return await revokeCommand(rest, ctx);
      default:
        throw new TrustUsageError(`unknown command "${sub}"`);
    }
  } catch (error) {
    if (error instanceof TrustUsageError) {
      io.err(`reasonix trust: ${error.message}\n\n${TRUST_USAGE}`);
      return EXIT_USAGE;
    }
    if (error instanceof ConfigError) {
      io.err(`reasonix trust: ${error.message}`);
      return EXIT_USAGE;
    }
    throw error;
  }
}
