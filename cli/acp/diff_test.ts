import assert from "node:assert/strict";
import { join } from "node:path";
import { unifiedDiff } from "../../tools/builtin/diff_meta.ts";
import { localWorkspace } from "../../tools/workspace/mod.ts";
import { editDiff, textBefore } from "./diff.ts";

const call = (name: string, args: unknown) => ({ id: "c", name, arguments: JSON.stringify(args) });

Deno.test("an edit's diff holds the whole file before and after; a failing edit has none", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(join(root, "a.txt"), "one\ntwo\n");
    const ctx = { workspace: localWorkspace(), root, signal: AbortSignal.timeout(5_000) };
    const path = join(root, "a.txt");
    assert.deepEqual(
      await editDiff(call("edit_file", { path: "a.txt", old_string: "two", new_string: "2" }), ctx),
      { type: "diff", path, oldText: "one\ntwo\n", newText: "one\n2\n" },
    );
    assert.deepEqual(
      await editDiff(
        call("multi_edit", {
          path: "a.txt",
          edits: [{ old_string: "one", new_string: "1" }, { old_string: "two", new_string: "2" }],
        }),
        ctx,
      ),
      { type: "diff", path, oldText: "one\ntwo\n", newText: "1\n2\n" },
    );
    assert.deepEqual(await editDiff(call("write_file", { path: "new.txt", content: "n\n" }), ctx), {
      type: "diff",
      path: join(root, "new.txt"),
      oldText: null,
      newText: "n\n",
    });
    assert.equal(
      await editDiff(
        call("edit_file", { path: "a.txt", old_string: "absent", new_string: "x" }),
        ctx,
      ),
      undefined,
    );
    assert.equal(await editDiff(call("read_file", { path: "a.txt" }), ctx), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the text before an edit comes back from the text after and the edit's diff", () => {
  const before = "a\nb\nc\nd\ne\nf\ng\n";
  const after = "a\nB\nc\nd\ne\nf\nG\n";
  assert.equal(textBefore(after, unifiedDiff("x.txt", before, after)!), before);
  assert.equal(textBefore("unrelated\n", unifiedDiff("x.txt", before, after)!), undefined);
  assert.equal(textBefore(after, ""), undefined);
});
