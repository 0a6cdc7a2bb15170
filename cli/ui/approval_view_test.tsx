import assert from "node:assert/strict";
import { join } from "node:path";
import { renderToString } from "ink";
import type { RecordedRequest } from "../../tests/fake_llm/mod.ts";
import { startUiSession } from "../../tests/support/ui_session.ts";
import { localWorkspace } from "../../tools/workspace/mod.ts";
import { approvalPreview, type PreviewContext } from "./approval_preview.ts";
import { OverlayView } from "./components/overlay_view.tsx";
import type { Overlay } from "./overlays.ts";
import { makeStyles } from "./style.ts";

const plain = makeStyles(false);

function view(overlay: Overlay, maxLines = 30, width = 80): string {
  return renderToString(
    <OverlayView overlay={overlay} width={width} maxLines={maxLines} styles={plain} />,
    { columns: width },
  );
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

async function withDir(
  files: Record<string, string>,
  fn: (ctx: PreviewContext) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-preview-" }));
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(join(root, name), text);
    }
    await fn({ workspace: localWorkspace(), root, mode: "ask", backend: "bubblewrap" });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const call = (name: string, args: unknown) => ({ id: "c1", name, arguments: JSON.stringify(args) });

Deno.test("the preview of an edit is the diff it would make; the file is not touched", async () => {
  await withDir({ "math.js": "function add(a, b) {\n  return a - b;\n}\n" }, async (ctx) => {
    const edit = await approvalPreview(
      call("edit_file", { path: "math.js", old_string: "a - b", new_string: "a + b" }),
      ctx,
    );
    assert.match(edit.diff ?? "", /^- {2}return a - b;$/m);
    assert.match(edit.diff ?? "", /^\+ {2}return a \+ b;$/m);
    assert.equal(
      await Deno.readTextFile(join(ctx.root, "math.js")),
      "function add(a, b) {\n  return a - b;\n}\n",
    );
    const multi = await approvalPreview(
      call("multi_edit", {
        path: "math.js",
        edits: [{ old_string: "add", new_string: "sum" }, { old_string: "a - b", new_string: "b" }],
      }),
      ctx,
    );
    assert.match(multi.diff ?? "", /^\+function sum\(a, b\) \{$/m);
    assert.match(multi.diff ?? "", /^\+ {2}return b;$/m);
    const created = await approvalPreview(
      call("write_file", { path: "new.txt", content: "hello\n" }),
      ctx,
    );
    assert.match(created.diff ?? "", /^\+hello$/m);
    const failing = await approvalPreview(
      call("edit_file", { path: "math.js", old_string: "nowhere", new_string: "x" }),
      ctx,
    );
    assert.equal(failing.diff, undefined);
    assert.match(failing.note ?? "", /the edit will fail/);
  });
});

Deno.test("the preview of a command names its directory and sandbox", async () => {
  await withDir({}, async (ctx) => {
    const bash = await approvalPreview(call("bash", { command: "npm test" }), ctx);
    assert.deepEqual(bash, {
      command: "npm test",
      cwd: ctx.root,
      sandbox: "workspace-write sandbox (bubblewrap), network on",
    });
    const auto = await approvalPreview(call("bash", { command: "ls" }), { ...ctx, mode: "auto" });
    assert.equal(auto.sandbox, "workspace-write sandbox (bubblewrap), no network");
  });
});

Deno.test("a command approval shows the command once, with its directory and sandbox", () => {
  const out = view({
    kind: "approval",
    selected: 0,
    request: {
      id: "r1",
      kind: "tool",
      tool: "bash",
      summary: "bash `npm test`",
      detail: "npm test\nPolicy: ask mode",
      sessionScope: "this exact command: npm test",
    },
    preview: {
      command: "npm test",
      cwd: "/work/repo",
      sandbox: "workspace-write sandbox (bubblewrap), network on",
    },
  });
  assert.equal(count(out, "npm test"), 1, out);
  assert.match(out, /Run this command\?/);
  assert.match(out, /\$ npm test/);
  assert.match(out, /in \/work\/repo · workspace-write sandbox \(bubblewrap\), network on/);
  assert.match(out, /Policy: ask mode/);
  assert.match(out, /For this session: this exact command\s/);
});

Deno.test("a long diff in an approval scrolls with PgUp PgDn markers", () => {
  const lines = Array.from({ length: 60 }, (_, i) => `+line ${i}`);
  const diff = `--- a\n+++ a\n@@ -0,0 +1,60 @@\n${lines.join("\n")}\n`;
  const base: Overlay = {
    kind: "approval",
    selected: 0,
    request: { id: "r1", kind: "tool", tool: "write_file", summary: "write_file a" },
    preview: { diff },
  };
  const top = view(base, 24);
  assert.match(top, /\+line 0\b/);
  assert.doesNotMatch(top, /\+line 59\b/);
  assert.match(top, /↓ \d+ more/);
  assert.match(top, /PgUp PgDn scroll the diff/);
  const scrolled = view({ ...base, offset: 40 }, 24);
  assert.match(scrolled, /↑ 40 more/);
  assert.match(scrolled, /\+line 40\b/);
  assert.doesNotMatch(scrolled, /\+line 0\b/);
});

Deno.test("the approval overlay of a real edit gets its diff, and PgDn scrolls it", async () => {
  const body = Array.from({ length: 80 }, (_, i) => `line ${i}`).join("\n") + "\n";
  const s = await startUiSession({
    files: { "long.txt": body },
    script: (req: RecordedRequest) =>
      (req.body as { messages: { role: string }[] }).messages.at(-1)!.role === "tool"
        ? { text: "Done." }
        : {
          toolCalls: [{
            name: "write_file",
            arguments: JSON.stringify({
              path: "long.txt",
              content: body.replaceAll("line", "LINE"),
            }),
          }],
        },
  });
  try {
    s.type("shout");
    s.press({ return: true });
    await s.until(() => {
      const o = s.controller.getSnapshot().overlay;
      return o?.kind === "approval" && o.preview?.diff !== undefined;
    }, "the approval with its diff");
    const overlay = s.controller.getSnapshot().overlay;
    assert.ok(overlay?.kind === "approval");
    assert.match(overlay.preview?.diff ?? "", /^-line 0$/m);
    assert.match(overlay.preview?.diff ?? "", /^\+LINE 0$/m);
    assert.equal(overlay.offset, 0);
    s.press({ pageDown: true });
    const after = s.controller.getSnapshot().overlay;
    assert.ok(after?.kind === "approval");
    assert.equal(after.offset, 10);
    s.press({}, "n");
    await s.controller.idle();
    assert.equal(await Deno.readTextFile(join(s.repo, "long.txt")), body);
  } finally {
    await s.close();
  }
});

Deno.test("a write-scope approval keeps its directories and still shows the command once", () => {
  const out = view({
    kind: "approval",
    selected: 0,
    request: {
      id: "r2",
      kind: "write_scope",
      tool: "bash",
      summary: "bash `make install` wants to write outside the writable roots: /opt/app",
      detail: "Justification: installs\nCommand: make install\nWritable roots now: /work/repo",
      sessionScope: "write access to /opt/app for this session",
    },
    preview: { command: "make install", cwd: "/work/repo", sandbox: "workspace-write sandbox" },
  });
  assert.match(out, /Allow writing outside the workspace\?/);
  assert.equal(count(out, "make install"), 1, out);
  assert.match(out, /writable roots: \/opt\/app/);
  assert.match(out, /Justification: installs/);
  assert.match(out, /in \/work\/repo · workspace-write sandbox/);
});
