import assert from "node:assert/strict";
import { displayPath, isWithin, resolveToolPath } from "./paths.ts";

Deno.test("resolveToolPath joins relative paths with the root and keeps absolute ones", () => {
  assert.equal(resolveToolPath("/ws", "src/a.ts"), "/ws/src/a.ts");
  assert.equal(resolveToolPath("/ws", "./src/../lib/b.ts"), "/ws/lib/b.ts");
  assert.equal(resolveToolPath("/ws", "/etc//hosts"), "/etc/hosts");
  assert.equal(resolveToolPath("/ws", "../other/x"), "/other/x");
  assert.equal(resolveToolPath("/ws", "dir/"), "/ws/dir");
  assert.equal(resolveToolPath("/ws", "."), "/ws");
});

Deno.test("displayPath is root-relative inside the root and absolute outside", () => {
  assert.equal(displayPath("/ws", "/ws"), ".");
  assert.equal(displayPath("/ws", "/ws/src/a.ts"), "src/a.ts");
  assert.equal(displayPath("/ws", "/ws/..hidden"), "..hidden");
  assert.equal(displayPath("/ws", "/other/a.ts"), "/other/a.ts");
});

Deno.test("isWithin accepts the directory itself and descendants only", () => {
  assert.ok(isWithin("/ws", "/ws"));
  assert.ok(isWithin("/ws", "/ws/a/b"));
  assert.ok(!isWithin("/ws", "/wsx"));
  assert.ok(!isWithin("/ws", "/"));
});
