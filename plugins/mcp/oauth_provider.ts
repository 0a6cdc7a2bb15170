/**
 * Reasonix's `OAuthClientProvider` for MCP HTTP servers. The SDK performs discovery (Protected
 * Resource Metadata, Authorization Server Metadata), dynamic client registration, PKCE S256,
 * resource indicators and refresh; this class stores what the SDK hands it and supplies the
 * user-agent step: in interactive mode a loopback receiver plus an opener (a browser in the
 * product), in background mode nothing (a needed authorization is reported, not started).
 *
 * @module
 */
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "./sdk.ts";
import type { LoopbackReceiver } from "./oauth_loopback.ts";
import type { OAuthRecord, OAuthStore } from "./oauth_store.ts";

/** Shows the authorization URL to the user (opens a browser, prints it, or a test agent). */
export type AuthorizationOpener = (url: URL) => Promise<void>;

/** Interactive-mode settings. */
export interface InteractiveAuthorization {
  receiver: LoopbackReceiver;
  open: AuthorizationOpener;
  /** How long to wait for the user to finish in the browser. */
  timeoutMs: number;
}

/** Options of {@link ReasonixOAuthProvider.create}. */
export interface ReasonixOAuthOptions {
  store: OAuthStore;
  /** `client_name` sent in dynamic registration. */
  clientName: string;
  interactive?: InteractiveAuthorization;
  /** A Client ID Metadata Document URL, used when the server supports it (SEP-991). */
  clientMetadataUrl?: string;
  /** Credentials registered out of band; dynamic registration is skipped. */
  preRegistered?: { client_id: string; client_secret?: string };
}

function randomState(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(
    /[+/=]/g,
    (c) => c === "+" ? "-" : c === "/" ? "_" : "",
  );
}

/** The provider. Create with {@link ReasonixOAuthProvider.create}. */
export class ReasonixOAuthProvider implements OAuthClientProvider {
  readonly #opts: ReasonixOAuthOptions;
  #record: OAuthRecord;
  #state?: string;
  #pending?: Promise<string>;
  /** Set when an authorization was needed but no user agent could run it. */
  authorizationNeeded = false;
  readonly clientMetadataUrl?: string;

  private constructor(opts: ReasonixOAuthOptions, record: OAuthRecord) {
    this.#opts = opts;
    this.#record = record;
    this.clientMetadataUrl = opts.clientMetadataUrl;
  }

  /** Loads the stored record and builds the provider. */
  static async create(opts: ReasonixOAuthOptions): Promise<ReasonixOAuthProvider> {
    return new ReasonixOAuthProvider(opts, await opts.store.read());
  }

  /** Whether an interactive user agent is available. */
  get interactive(): boolean {
    return this.#opts.interactive !== undefined;
  }

  get redirectUrl(): string | undefined {
    return this.#opts.interactive?.receiver.redirectUrl ??
      this.#record.redirectUrl ??
      (this.#record.client?.redirect_uris as string[] | undefined)?.[0];
  }

  get clientMetadata(): OAuthClientMetadata {
    // No default scope: the SDK picks it from the challenge or the resource metadata (SEP-835).
    return {
      client_name: this.#opts.clientName,
      redirect_uris: this.redirectUrl ? [this.redirectUrl] : [],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.#state = randomState();
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.#opts.preRegistered) return { ...this.#opts.preRegistered };
    const client = this.#record.client as OAuthClientInformationMixed | undefined;
    if (!client) return undefined;
    // A registration made for another loopback port would be refused at the redirect.
    const uris = (client as { redirect_uris?: string[] }).redirect_uris;
    const redirect = this.#opts.interactive?.receiver.redirectUrl;
    if (redirect && Array.isArray(uris) && uris.length > 0 && !uris.includes(redirect)) {
      return undefined;
    }
    return client;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.#save((r) => r.client = { ...info } as Record<string, unknown>);
  }

  tokens(): OAuthTokens | undefined {
    return this.#record.tokens as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    // Refresh-token rotation: the SDK hands over the new refresh token (or keeps the old one
    // when the server did not rotate); the stored pair is replaced as a whole.
    await this.#save((r) => {
      r.tokens = { ...tokens };
      delete r.codeVerifier;
    });
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.#save((r) => r.codeVerifier = verifier);
  }

  codeVerifier(): string {
    const verifier = this.#record.codeVerifier;
    if (!verifier) throw new Error("no PKCE code verifier was saved for this authorization");
    return verifier;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.#save((r) => r.discovery = { ...state } as unknown as Record<string, unknown>);
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#record.discovery as unknown as OAuthDiscoveryState | undefined;
  }

  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    await this.#save((r) => {
      if (scope === "all" || scope === "client") delete r.client;
      if (scope === "all" || scope === "tokens") delete r.tokens;
      if (scope === "all" || scope === "verifier") delete r.codeVerifier;
      if (scope === "all" || scope === "discovery") delete r.discovery;
    });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const interactive = this.#opts.interactive;
    if (!interactive) {
      this.authorizationNeeded = true;
      return;
    }
    const state = url.searchParams.get("state") ?? this.#state ?? "";
    await this.#save((r) => r.redirectUrl = interactive.receiver.redirectUrl);
    const code = interactive.receiver.expect(state, { timeoutMs: interactive.timeoutMs });
    // The newest flow wins: an older one (its verifier is gone) must not be finished.
    this.#pending = code;
    code.catch(() => {});
    await interactive.open(url);
  }

  /** The code of the authorization just started, once the user agent delivers it. */
  takeAuthorizationCode(): Promise<string> | undefined {
    const pending = this.#pending;
    this.#pending = undefined;
    return pending;
  }

  async #save(change: (record: OAuthRecord) => void): Promise<void> {
    change(this.#record);
    try {
      await this.#opts.store.update(change);
    } catch (error) {
      // The read-only preset revokes Deno's write permission: the session keeps its tokens
      // in memory, and only a later run has to authorize again.
      const denied = error instanceof Deno.errors.PermissionDenied ||
        error instanceof Deno.errors.NotCapable;
      if (!denied) throw error;
    }
  }
}
