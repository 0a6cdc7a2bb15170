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
import { type CliContext, CONSOLE_IO, runSubtree, UsageError } from "./commands/execute.ts";
import { defineTrust } from "./commands/trust.ts";
import type { TrustRequest } from "./commands/types.ts";

export type { TrustRequest } from "./commands/types.ts";
import {
  declarationPlace,
  declarationTitle,
  describeDeclaration,
  type ProjectReview,
  reviewProject,
  type TrustItem,
} from "./project_trust.ts";

/** Where the trust commands write. */
type Io = CliContext["io"];

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

async function statusCommand(ctx: Ctx): Promise<number> {
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

async function listCommand(json: boolean, ctx: Ctx): Promise<number> {
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

/** Checks that exactly one of `--all` and names was given. */
function checkSelection(command: "grant" | "revoke", all: boolean, names: string[]): void {
  if (all && names.length) {
    throw new UsageError(`${command} takes either --all or names, not both`);
  }
  if (!all && names.length === 0) {
    throw new UsageError(`${command} needs --all or the name of what to ${command}`);
  }
}

async function grantCommand(all: boolean, names: string[], ctx: Ctx): Promise<number> {
  checkSelection("grant", all, names);
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

async function revokeCommand(
  request: { all: boolean; names: string[]; workspace?: string },
  ctx: Ctx,
): Promise<number> {
  const { all, names, workspace: dir } = request;
  checkSelection("revoke", all, names);
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

/**
 * Runs one trust command and returns the exit code. Bad usage throws a {@link UsageError}; a
 * trust store that cannot be used is a message and exit code 2.
 */
export async function runTrust(request: TrustRequest, context: CliContext): Promise<number> {
  const io = context.io;
  try {
    const env = context.env ?? Deno.env.toObject();
    const home = reasonixHome(env);
    const ctx: Ctx = { cwd: context.cwd ?? Deno.cwd(), home, io, store: new TrustStore(home) };
    switch (request.command) {
      case "status":
        return await statusCommand(ctx);
      case "list":
        return await listCommand(request.json, ctx);
      case "grant":
        return await grantCommand(request.all, request.names, ctx);
      case "revoke":
        return await revokeCommand(request, ctx);
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`reasonix trust: ${error.message}`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

/**
 * Runs `reasonix trust …` with its arguments (after `trust`) in-process: the same command tree
 * as the program's, writing to `opts.io`. Returns the exit code.
 */
export async function trustCommand(
  argv: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; io?: Io } = {},
): Promise<number> {
  const io = opts.io ?? CONSOLE_IO;
  return await runSubtree(defineTrust, ["trust", ...argv], { ...opts, io });
}
