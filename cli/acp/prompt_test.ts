import assert from "node:assert/strict";
import { promptInput } from "./prompt.ts";

Deno.test("text, resource links, embedded resources and images become one user turn", () => {
  const input = promptInput([
    { type: "text", text: "Explain" },
    { type: "resource_link", uri: "file:///w/src/a.ts", name: "a.ts" },
    { type: "resource_link", uri: "file:///elsewhere/b.ts", name: "b.ts" },
    { type: "resource_link", uri: "https://example.com/x", name: "x" },
    {
      type: "resource",
      resource: { uri: "file:///w/open.ts", text: "const x = 1;", mimeType: "text/typescript" },
    },
    { type: "resource", resource: { uri: "file:///w/p.png", blob: "AAA", mimeType: "image/png" } },
    { type: "resource", resource: { uri: "file:///w/z.bin", blob: "AAA" } },
    { type: "image", data: "BBB", mimeType: "image/jpeg" },
    { type: "image", data: "", mimeType: "image/png", uri: "https://example.com/i.png" },
  ], "/w");
  assert.equal(input.text, "Explain @src/a.ts @/elsewhere/b.ts x (https://example.com/x)");
  assert.deepEqual(input.images, [
    { mediaType: "image/png", data: "AAA" },
    { mediaType: "image/jpeg", data: "BBB" },
    { url: "https://example.com/i.png" },
  ]);
  assert.deepEqual(input.blocks, [
    '<resource uri="/w/open.ts">\nconst x = 1;\n</resource>',
    '<resource uri="/w/z.bin">(binary content not shown)</resource>',
  ]);
});

Deno.test("a plain text prompt has no images or blocks", () => {
  assert.deepEqual(promptInput([{ type: "text", text: " hi " }], "/w"), { text: "hi" });
});
