import assert from "node:assert/strict";
import { join } from "node:path";
import { attachedImages, attachmentLabel, formatAttachment, withAttachments } from "./format.ts";
import { MAX_IMAGE_BYTES } from "../vision/image_input.ts";
import { resolveReferences } from "./resolve.ts";
import type { McpResourceReader } from "./types.ts";
import { WriteScope } from "../permission/confine.ts";
import { Policy } from "../permission/policy.ts";
import { findPreset } from "../permission/presets.ts";
import { PermissionReadGuard } from "../permission/read_guard.ts";
import { parseRule } from "../permission/rules.ts";

async function withTree(
  files: Record<string, string | Uint8Array>,
  fn: (root: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-refs-" }));
  try {
    for (const [name, content] of Object.entries(files)) {
      const path = join(root, name);
      await Deno.mkdir(join(path, ".."), { recursive: true });
      if (typeof content === "string") await Deno.writeTextFile(path, content);
      else await Deno.writeFile(path, content);
    }
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("@path reads a file only when the path exists; mentions and e-mails stay text", async () => {
  await withTree({ "src/a.ts": "export const a = 1;\n" }, async (root) => {
    const text = "Compare @src/a.ts with @src/missing.ts, ask @alice or alice@example.com.";
    const { attachments, notices } = await resolveReferences(text, { root });
    assert.deepEqual(notices, []);
    assert.deepEqual(attachments, [{
      kind: "file",
      ref: "src/a.ts",
      path: "src/a.ts",
      text: "export const a = 1;\n",
      size: 20,
      truncated: false,
    }]);
    assert.equal(
      withAttachments(text, attachments),
      `${text}\n\n<referenced-file path="src/a.ts">\nexport const a = 1;\n</referenced-file>`,
    );
  });
});

Deno.test("a reference at the end of a sentence still resolves, and twice is read once", async () => {
  await withTree({ "README.md": "# Hi" }, async (root) => {
    const { attachments } = await resolveReferences("Read @README.md. Then @README.md again", {
      root,
    });
    assert.equal(attachments.length, 1);
    assert.equal(attachments[0].kind === "file" && attachments[0].text, "# Hi");
  });
});

Deno.test("files over the size cap are truncated with a marker", async () => {
  await withTree({ "big.txt": "é".repeat(100) }, async (root) => {
    const { attachments } = await resolveReferences("@big.txt", { root, maxFileBytes: 51 });
    const [a] = attachments;
    assert.equal(a.kind, "file");
    if (a.kind !== "file") return;
    assert.equal(a.truncated, true);
    assert.equal(a.size, 200);
    // 51 bytes hold 25 two-byte characters; the cut half character is dropped.
    assert.equal(a.text, "é".repeat(25));
    assert.match(withAttachments("x", attachments), /\[truncated: showing the first 50 B of 200 B/);
  });
});

Deno.test("binary files are marked, not expanded", async () => {
  await withTree({
    "logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x1a]),
    "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  }, async (root) => {
    const { attachments } = await resolveReferences("@logo.png @latin1.txt", { root });
    assert.deepEqual(attachments, [
      { kind: "binary", ref: "logo.png", path: "logo.png", size: 6 },
      { kind: "binary", ref: "latin1.txt", path: "latin1.txt", size: 5 },
    ]);
    assert.match(
      withAttachments("look", attachments),
      /<referenced-file path="logo.png" binary="true">\n\[binary file, 6 B, not shown\]/,
    );
  });
});

Deno.test("directories are listed depth-first, skipping .git and node_modules", async () => {
  await withTree({
    "b.txt": "",
    "a/z.txt": "",
    "a/inner/deep.txt": "",
    "a/.hidden": "",
    ".git/HEAD": "ref",
    "node_modules/pkg/index.js": "",
    "c/node_modules/x.js": "",
  }, async (root) => {
    const { attachments } = await resolveReferences("@.", { root });
    const [a] = attachments;
    assert.equal(a.kind, "directory");
    if (a.kind !== "directory") return;
    assert.equal(a.path, "./");
    assert.equal(
      a.listing,
      ["a/", "  .hidden", "  inner/", "    deep.txt", "  z.txt", "b.txt", "c/"].join("\n"),
    );
    assert.equal(a.truncated, false);
  });
});

Deno.test("directory listings stop at the entry cap", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 10; i++) files[`d/f${i}.txt`] = "";
  await withTree(files, async (root) => {
    const { attachments } = await resolveReferences("@d/", { root, maxDirEntries: 4 });
    const [a] = attachments;
    assert.ok(a.kind === "directory" && a.truncated && a.entries === 4);
    assert.match(withAttachments("x", attachments), /\[listing stopped after 4 entries\]/);
  });
});

Deno.test("@server:uri reads an MCP resource; failures become notices", async () => {
  const reads: string[] = [];
  const mcp: McpResourceReader = {
    hasServer: (name) => name === "docs",
    readResource: (server, uri) => {
      reads.push(`${server} ${uri}`);
      if (uri.endsWith("gone")) return Promise.reject(new Error("resource not found"));
      return Promise.resolve(`content of ${uri}`);
    },
  };
  await withTree({}, async (root) => {
    const { attachments, notices } = await resolveReferences(
      "Use @docs:file:///guide.md and @docs:mem://gone but not @other:x",
      { root, mcp },
    );
    assert.deepEqual(reads, ["docs file:///guide.md", "docs mem://gone"]);
    assert.deepEqual(attachments, [{
      kind: "resource",
      ref: "docs:file:///guide.md",
      server: "docs",
      uri: "file:///guide.md",
      text: "content of file:///guide.md",
      truncated: false,
    }]);
    assert.deepEqual(notices, ["@docs:mem://gone: cannot read MCP resource: resource not found"]);
  });
});

Deno.test("an unreadable path becomes a notice and the rest still resolves", async () => {
  if (Deno.uid() === 0) return; // root reads everything
  await withTree({ "secret.txt": "x", "ok.txt": "fine" }, async (root) => {
    await Deno.chmod(join(root, "secret.txt"), 0o000);
    const { attachments, notices } = await resolveReferences("@secret.txt @ok.txt", { root });
    assert.equal(attachments.length, 1);
    assert.match(notices[0], /^@secret\.txt: cannot read secret\.txt/);
  });
});

Deno.test("resolution stops when the turn is cancelled", async () => {
  const mcp: McpResourceReader = {
    hasServer: () => true,
    readResource: (_s, _u, { signal }) =>
      new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason))
      ),
  };
  const controller = new AbortController();
  const pending = resolveReferences("@srv:slow", { root: "/", mcp, signal: controller.signal });
  controller.abort(new DOMException("cancelled", "AbortError"));
  await assert.rejects(pending, (e: unknown) => e instanceof DOMException);
});

const PNG_1X1 = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

Deno.test("@image attaches PNG, JPEG, GIF and WebP files as images, told apart by content", async () => {
  await withTree({ "shot.png": PNG_1X1, "fake.png": "not an image\n" }, async (root) => {
    const { attachments, notices } = await resolveReferences("see @shot.png and @fake.png", {
      root,
    });
    assert.deepEqual(notices, []);
    assert.deepEqual(attachments.map((a) => [a.kind, a.ref]), [
      ["image", "shot.png"],
      ["file", "fake.png"],
    ]);
    assert.deepEqual(attachedImages(attachments), [{
      mediaType: "image/png",
      data: btoa(String.fromCharCode(...PNG_1X1)),
    }]);
    assert.equal(attachmentLabel(attachments[0]), `shot.png (image, ${PNG_1X1.length} B)`);
    assert.equal(
      formatAttachment(attachments[0]),
      `<referenced-image path="shot.png">\n[attached to this message as an image, ${PNG_1X1.length} B]\n` +
        "</referenced-image>",
    );
  });
});

Deno.test("an @image over the size limit is a notice, not an attachment", async () => {
  await withTree({ "huge.png": PNG_1X1 }, async (root) => {
    await Deno.truncate(join(root, "huge.png"), MAX_IMAGE_BYTES + 1);
    const { attachments, notices } = await resolveReferences("@huge.png", { root });
    assert.deepEqual(attachments, []);
    assert.deepEqual(notices, [
      "@huge.png: 10485761 bytes is over the 10.0 MiB limit; shrink or crop the image first",
    ]);
  });
});

/** A workspace with a sibling directory outside it; both real paths. */
async function withOutside(
  files: Record<string, string>,
  fn: (dirs: { root: string; outside: string }) => Promise<void>,
): Promise<void> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-refs-out-" }));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  try {
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(outside, "key.txt"), "OUTSIDE-SECRET");
    await Deno.mkdir(root);
    for (const [name, content] of Object.entries(files)) {
      await Deno.mkdir(join(root, name, ".."), { recursive: true });
      await Deno.writeTextFile(join(root, name), content);
    }
    await fn({ root, outside });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("references in supplied text stay inside the workspace; the user's own do not", async () => {
  await withOutside({ "notes.txt": "in the workspace" }, async ({ root, outside }) => {
    await Deno.symlink(join(outside, "key.txt"), join(root, "link.txt"));
    await Deno.symlink(outside, join(root, "linkdir"));
    const key = join(outside, "key.txt");
    const template = `Review @notes.txt, @${key}, @link.txt, @linkdir/key.txt and @linkdir.`;
    const text = `${template} Also @${key}`;
    const source = ".reasonix/commands/review.md";
    const { attachments, notices } = await resolveReferences(text, {
      root,
      supplied: [{ start: 0, end: template.length, source }],
    });
    // The user typed the last reference themselves: theirs to attach.
    assert.deepEqual(attachments.map((a) => [a.kind, a.ref]), [
      ["file", "notes.txt"],
      ["file", key],
    ]);
    assert.equal(notices.length, 4, notices.join("\n"));
    for (const ref of [key, "link.txt", "linkdir/key.txt", "linkdir"]) {
      assert.ok(
        notices.some((n) =>
          n.startsWith(`@${ref} in ${source}:`) && n.includes("is outside the workspace")
        ),
        `${ref}: ${notices.join("\n")}`,
      );
    }
    const sent = withAttachments(text, attachments.slice(0, 1));
    assert.doesNotMatch(sent, /OUTSIDE-SECRET/);
  });
});

Deno.test("a path an argument filled in is the user's; one the template wrote is not", async () => {
  await withOutside({}, async ({ root, outside }) => {
    // `Look at @$1` with $1 = the outside file, and `@<outside>/$1` with $1 = key.txt.
    const typed = `Look at @${join(outside, "key.txt")}`;
    const byUser = await resolveReferences(typed, {
      root,
      supplied: [{ start: 0, end: "Look at @".length, source: "look.md" }],
    });
    assert.deepEqual(byUser.notices, []);
    assert.equal(byUser.attachments.length, 1);
    const written = `Look at @${outside}/key.txt`;
    const byTemplate = await resolveReferences(written, {
      root,
      supplied: [{ start: 0, end: `Look at @${outside}/`.length, source: "look.md" }],
    });
    assert.deepEqual(byTemplate.attachments, []);
    assert.match(byTemplate.notices[0], /is outside the workspace/);
  });
});

Deno.test("forbid_read and read rules keep every reference out, and out of listings", async () => {
  await withOutside({
    "notes.txt": "fine",
    "secret/key.txt": "FORBIDDEN",
    "config/app.env": "DENIED",
    "src/a.ts": "a",
  }, async ({ root, outside }) => {
    await Deno.symlink(join(root, "secret", "key.txt"), join(root, "alias.txt"));
    const guard = new PermissionReadGuard(
      new Policy({
        preset: findPreset("accept-edits")!,
        rules: { allow: [], ask: [], deny: [parseRule("Read(**/*.env)")] },
        workspaceRoot: root,
        shellSandbox: true,
      }),
      new WriteScope([root], [join(root, "secret"), outside]),
    );
    const text = `@notes.txt @secret/key.txt @alias.txt @config/app.env @${
      join(outside, "key.txt")
    } @.`;
    const { attachments, notices } = await resolveReferences(text, { root, readGuard: guard });
    assert.deepEqual(attachments.map((a) => a.ref), ["notes.txt", "."]);
    assert.equal(notices.length, 4, notices.join("\n"));
    assert.ok(notices.every((n) => /not attached, the .* denies reading/.test(n)), notices.join());
    const listing = attachments[1].kind === "directory" ? attachments[1].listing : "";
    assert.match(listing, /notes\.txt/);
    assert.match(listing, /src\/\n {2}a\.ts/);
    assert.doesNotMatch(listing, /secret|app\.env/);
    assert.doesNotMatch(withAttachments(text, attachments), /FORBIDDEN|DENIED|OUTSIDE-SECRET/);
  });
});
