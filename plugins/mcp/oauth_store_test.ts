import assert from "node:assert/strict";
import { clearOAuthState, oauthFile, OAuthStore, pruneOrphanedOAuth } from "./oauth_store.ts";
import { ReasonixOAuthProvider } from "./oauth_provider.ts";

Deno.test("OAuth state is written with mode 0600 in a 0700 directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new OAuthStore(dir, "gh", "https://mcp.example/mcp");
    await store.update((r) => r.tokens = { access_token: "a", token_type: "Bearer" });
    assert.ok(store.path.startsWith(`${dir}/oauth/`));
    if (Deno.build.os !== "windows") {
      assert.equal((await Deno.stat(store.path)).mode! & 0o777, 0o600);
      assert.equal((await Deno.stat(`${dir}/oauth`)).mode! & 0o777, 0o700);
    }
    assert.deepEqual((await store.read()).tokens, { access_token: "a", token_type: "Bearer" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tokens are bound to the resource URL: a changed URL starts from nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await new OAuthStore(dir, "gh", "https://mcp.example/mcp").update((r) =>
      r.tokens = { access_token: "a", token_type: "Bearer" }
    );
    assert.equal(await new OAuthStore(dir, "gh", "https://mcp.example/mcp#frag").hasTokens(), true);
    assert.equal(await new OAuthStore(dir, "gh", "https://other.example/mcp").hasTokens(), false);
    assert.equal(await new OAuthStore(dir, "other", "https://mcp.example/mcp").hasTokens(), false);
    // A file copied to another key is not trusted for it.
    await Deno.copyFile(
      oauthFile(dir, "gh", "https://mcp.example/mcp"),
      oauthFile(dir, "gh", "https://evil.example/mcp"),
    );
    assert.equal(await new OAuthStore(dir, "gh", "https://evil.example/mcp").hasTokens(), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("removing a declaration clears its OAuth state unless the fallback uses the same resource", async () => {
  const dir = await Deno.makeTempDir();
  const url = "https://mcp.example/mcp";
  const store = new OAuthStore(dir, "gh", url);
  const save = () => store.update((r) => r.tokens = { access_token: "a", token_type: "Bearer" });
  try {
    await save();
    assert.equal(await clearOAuthState(dir, { name: "gh", url }, { url }), false);
    assert.equal(await store.hasTokens(), true);
    assert.equal(
      await clearOAuthState(dir, { name: "gh", url }, { url: "https://else.example/mcp" }),
      true,
    );
    assert.equal(await store.hasTokens(), false);
    await save();
    assert.equal(await clearOAuthState(dir, { name: "gh", url }), true);
    assert.equal(await store.hasTokens(), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the provider stores rotated refresh tokens and sends no default scope", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new OAuthStore(dir, "gh", "https://mcp.example/mcp");
    const provider = await ReasonixOAuthProvider.create({ store, clientName: "Reasonix" });
    await provider.saveTokens({ access_token: "a1", token_type: "Bearer", refresh_token: "r1" });
    await provider.saveTokens({ access_token: "a2", token_type: "Bearer", refresh_token: "r2" });
    const again = await ReasonixOAuthProvider.create({ store, clientName: "Reasonix" });
    assert.equal(again.tokens()?.refresh_token, "r2");
    assert.equal(again.tokens()?.access_token, "a2");
    assert.equal(again.clientMetadata.scope, undefined);
    assert.deepEqual(again.clientMetadata.grant_types, ["authorization_code", "refresh_token"]);
    // Background mode never starts an authorization; it records that one is needed.
    await again.redirectToAuthorization(new URL("https://as.example/authorize?state=x"));
    assert.equal(again.authorizationNeeded, true);
    assert.equal(again.takeAuthorizationCode(), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("OAuth state of servers no longer declared anywhere is pruned", async () => {
  const stateDir = await Deno.makeTempDir();
  try {
    const kept = new OAuthStore(stateDir, "github", "https://mcp.example.com/mcp");
    const gone = new OAuthStore(stateDir, "old", "https://old.example.com/mcp");
    await kept.update((r) => r.tokens = { access_token: "a", token_type: "Bearer" });
    await gone.update((r) => r.tokens = { access_token: "b", token_type: "Bearer" });
    assert.equal(await pruneOrphanedOAuth(stateDir, new Set(["github"])), 1);
    assert.equal(await kept.hasTokens(), true);
    assert.equal(await gone.hasTokens(), false);
  } finally {
    await Deno.remove(stateDir, { recursive: true });
  }
});
