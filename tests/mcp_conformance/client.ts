/**
 * The client under test for the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`). It drives Reasonix's own plugin layer (`McpHost`:
 * supervisor, transports, OAuth provider with its loopback receiver) against the suite's mock
 * server, whose URL is the last argument.
 *
 * Test-only choices live here, never in the product: the headless user agent (it follows the
 * authorization server's redirect straight into the loopback receiver), the suite's Client ID
 * Metadata Document URL, auto-accepted elicitations, and the credentials the suite hands over
 * in `MCP_CONFORMANCE_CONTEXT`.
 */
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import { discoverOAuthServerInfo } from "@modelcontextprotocol/sdk/client/auth.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth-extensions"
import {
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
} from "@modelcontextprotocol/sdk/client/auth-extensions.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { McpHost } from "../../plugins/mcp/mod.ts";
import type { McpClientCustomization, McpServerEntry } from "../../plugins/mcp/mod.ts";

const CIMD_URL = "https://conformance-test.local/client-metadata.json";

interface Context {
  name?: string;
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  idp_id_token?: string;
  idp_issuer?: string;
  idp_token_endpoint?: string;
}

/** The "browser": asks the authorization server, then delivers its redirect to the receiver. */
async function headlessUserAgent(url: URL): Promise<void> {
  const answer = await fetch(url, { redirect: "manual" });
  await answer.body?.cancel();
  const location = answer.headers.get("location");
  if (!location) {
    throw new Error(`authorization endpoint answered ${answer.status} without a redirect`);
  }
  const callback = await fetch(new URL(location, url));
  await callback.body?.cancel();
}

/** RFC 8693 token exchange at the IdP: the ID token becomes an ID-JAG for the MCP AS. */
async function identityAssertion(ctx: Context, serverUrl: URL): Promise<{
  assertion: string;
  issuer: string;
}> {
  const info = await discoverOAuthServerInfo(serverUrl);
  const issuer = info.authorizationServerMetadata?.issuer ?? info.authorizationServerUrl;
  const resource = info.resourceMetadata?.resource ?? serverUrl.href;
  const response = await fetch(ctx.idp_token_endpoint!, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: ctx.idp_id_token!,
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience: issuer,
      resource,
    }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
  return { assertion: body.access_token, issuer: info.authorizationServerUrl };
}

/** A client-credentials client that presents an ID-JAG with the RFC 7523 jwt-bearer grant. */
class JwtBearerProvider extends ClientCredentialsProvider {
  readonly #assertion: string;

  constructor(opts: { clientId: string; clientSecret: string; assertion: string; issuer: string }) {
    super({
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      expectedIssuer: opts.issuer,
    });
    this.#assertion = opts.assertion;
  }

  override prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion: this.#assertion,
    });
    if (scope) params.set("scope", scope);
    return params;
  }
}

async function customization(scenario: string, ctx: Context, url: URL): Promise<
  McpClientCustomization
> {
  const custom: McpClientCustomization = {
    capabilities: { elicitation: { form: { applyDefaults: true } } },
    onClient(client) {
      // The SDK fills the schema's defaults into an accepted form (applyDefaults above).
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: {} }));
    },
    oauth: { clientMetadataUrl: CIMD_URL },
  };
  if (scenario === "auth/pre-registration" && ctx.client_id) {
    custom.oauth!.preRegistered = { client_id: ctx.client_id, client_secret: ctx.client_secret };
  }
  if (scenario === "auth/client-credentials-basic") {
    const info = await discoverOAuthServerInfo(url);
    const provider = new ClientCredentialsProvider({
      clientId: ctx.client_id!,
      clientSecret: ctx.client_secret!,
      expectedIssuer: info.authorizationServerUrl,
    });
    custom.authProvider = () => provider;
  }
  if (scenario === "auth/client-credentials-jwt") {
    const info = await discoverOAuthServerInfo(url);
    const provider = new PrivateKeyJwtProvider({
      clientId: ctx.client_id!,
      privateKey: ctx.private_key_pem!,
      algorithm: ctx.signing_algorithm ?? "ES256",
      expectedIssuer: info.authorizationServerUrl,
    });
    custom.authProvider = () => provider;
  }
  if (scenario === "auth/cross-app-access-complete-flow") {
    const { assertion, issuer } = await identityAssertion(ctx, url);
    const provider = new JwtBearerProvider({
      clientId: ctx.client_id!,
      clientSecret: ctx.client_secret!,
      assertion,
      issuer,
    });
    custom.authProvider = () => provider;
  }
  return custom;
}

/** The tool each scenario expects the client to call, with its arguments. */
function plannedCall(
  scenario: string,
  tools: string[],
): [string, Record<string, unknown>] | undefined {
  if (scenario === "tools_call") return ["add_numbers", { a: 2, b: 3 }];
  if (scenario.startsWith("elicitation")) return ["test_client_elicitation_defaults", {}];
  if (scenario === "sse-retry") return ["test_reconnection", {}];
  if (scenario === "initialize") return undefined;
  return tools.length ? [tools[0], {}] : undefined;
}

async function main(): Promise<number> {
  const url = new URL(Deno.args[Deno.args.length - 1]);
  const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
  const ctx: Context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}");
  const stateDir = await Deno.makeTempDir({ prefix: "reasonix-conformance-" });
  const source = { kind: "user" as const, file: "conformance" };
  const entry: McpServerEntry = {
    declaration: { name: "conformance", type: "http", url: url.href, source },
    shadowed: [],
    spec: {
      name: "conformance",
      transport: "http",
      url,
      headers: {},
      concurrency: "parallel",
      startupTimeoutMs: 20_000,
      source,
    },
  };
  const host = new McpHost({
    entries: [entry],
    clientInfo: { name: "reasonix-conformance", version: "0.1.0" },
    callTimeoutMs: 20_000,
    stateDir,
    env: Deno.env.toObject(),
    authorizer: { open: headlessUserAgent, timeoutMs: 10_000 },
    customize: await customization(scenario, ctx, url),
  });
  try {
    host.start();
    await host.waitForStartup({ timeoutMs: 25_000 });
    const [status] = host.status();
    if (status.phase !== "ready") {
      console.error(`not ready: ${status.phase} (${status.error ?? "no error class"})`);
      return 1;
    }
    const call = plannedCall(scenario, host.tools("conformance").map((t) => t.name));
    if (call) {
      const result = await host.callTool({ server: "conformance", tool: call[0], args: call[1] });
      console.log(JSON.stringify(result));
      if (result.isError) return 1;
    }
    return 0;
  } catch (error) {
    console.error(`${scenario}: ${(error as Error)?.message ?? error}`);
    return 1;
  } finally {
    await host.close();
    await Deno.remove(stateDir, { recursive: true }).catch(() => {});
  }
}

Deno.exit(await main());
