import assert from "node:assert/strict";
import { mergeLayers } from "./merge.ts";
import type { LayerData } from "./schema.ts";

Deno.test("mergeLayers deep-merges tables and replaces scalar arrays", () => {
  const lower: LayerData = {
    agent: { max_turns: 10, compact_ratio: 0.8 },
    tools: { enabled: ["read_file", "bash"], bash_timeout_seconds: 120 },
    sandbox: { allow_write: ["/tmp"] },
  };
  const higher: LayerData = {
    agent: { compact_ratio: 0.7 },
    tools: { enabled: ["read_file"] },
  };
  assert.deepEqual(mergeLayers(lower, higher), {
    agent: { max_turns: 10, compact_ratio: 0.7 },
    tools: { enabled: ["read_file"], bash_timeout_seconds: 120 },
    sandbox: { allow_write: ["/tmp"] },
  });
});

Deno.test("mergeLayers concatenates permission rules so a higher layer cannot drop a deny", () => {
  const merged = mergeLayers(
    { permissions: { mode: "ask", deny: ["Bash(rm -rf*)"], allow: ["Read"], ask: [] } },
    { permissions: { deny: [], allow: ["Bash(go test:*)", "Read"], ask: ["Edit"] } },
  );
  assert.deepEqual(merged.permissions, {
    mode: "ask",
    deny: ["Bash(rm -rf*)"],
    allow: ["Read", "Bash(go test:*)"],
    ask: ["Edit"],
  });
});

Deno.test("mergeLayers adds a higher layer's forbid_read to the lower's, never replaces it", () => {
  const merged = mergeLayers(
    { sandbox: { allow_write: ["/cache"], forbid_read: ["~/.ssh"] } },
    { sandbox: { allow_write: [], forbid_read: [] } },
  );
  assert.deepEqual(merged.sandbox, { allow_write: [], forbid_read: ["~/.ssh"] });
  const added = mergeLayers(merged, { sandbox: { forbid_read: ["secrets", "~/.ssh"] } });
  assert.deepEqual(added.sandbox?.forbid_read, ["~/.ssh", "secrets"]);
});

Deno.test("mergeLayers merges [[providers]] by name and appends new names", () => {
  const merged = mergeLayers(
    {
      providers: [
        { name: "a", kind: "openai", models: ["x", "y"], context_window: 100, headers: { A: "1" } },
        { name: "b", kind: "openai", context_window: 5 },
      ],
    },
    {
      providers: [
        { name: "c", kind: "openai", context_window: 7 },
        { name: "a", models: ["z"], headers: { B: "2" } },
      ],
    },
  );
  assert.deepEqual(merged.providers, [
    { name: "a", kind: "openai", models: ["z"], context_window: 100, headers: { A: "1", B: "2" } },
    { name: "b", kind: "openai", context_window: 5 },
    { name: "c", kind: "openai", context_window: 7 },
  ]);
});

Deno.test("mergeLayers deep-merges the raw [mcp] table", () => {
  const merged = mergeLayers(
    { mcp: { servers: { fs: { command: "fs-server", args: ["-v"] } } } },
    { mcp: { servers: { fs: { args: ["-q"] }, git: { command: "git-mcp" } } } },
  );
  assert.deepEqual(merged.mcp, {
    servers: { fs: { command: "fs-server", args: ["-q"] }, git: { command: "git-mcp" } },
  });
});

Deno.test("mergeLayers does not modify its inputs", () => {
  const lower: LayerData = {
    providers: [{ name: "a", context_window: 1 }],
    agent: { max_turns: 1 },
  };
  const higher: LayerData = {
    providers: [{ name: "a", context_window: 2 }],
    agent: { max_turns: 2 },
  };
  const before = structuredClone([lower, higher]);
  mergeLayers(lower, higher);
  assert.deepEqual([lower, higher], before);
});
