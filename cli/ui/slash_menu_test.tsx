import assert from "node:assert/strict";
import { renderToString } from "ink";
import stringWidth from "string-width";
import { OverlayView } from "./components/overlay_view.tsx";
import { completeSlash, slashCatalog } from "./slash.ts";
import { makeStyles } from "./style.ts";
import { alignColumns } from "./text_util.ts";

const plain = makeStyles(false);

/** The terminal column where `text` starts on `line` (CJK counts double). */
function column(line: string, text: string): number {
  return stringWidth(line.slice(0, line.indexOf(text)));
}

Deno.test("slash-menu descriptions start in one column", () => {
  const items = slashCatalog(
    [{
      name: "评审",
      description: "Review a file",
      argumentHint: "<file>",
      template: "",
      scope: "project",
      path: "/x",
      frontmatter: {},
    }],
    [],
  );
  // Eight rows fit the menu: seven built-ins (a long argument hint among them) and the CJK one.
  const all = completeSlash("", items);
  const shown = [...all.slice(0, 6), all.find((i) => i.name === "memory")!, all.at(-1)!];
  const out = renderToString(
    <OverlayView
      overlay={{ kind: "slash", items: shown, selected: 1 }}
      width={100}
      maxLines={20}
      styles={plain}
    />,
    { columns: 100 },
  );
  const lines = out.split("\n").filter((l) => l.includes("/"));
  // A description may be cut at the right edge, so its start is looked for.
  const columns = shown.map((item, i) => column(lines[i], item.description.slice(0, 12)));
  assert.equal(new Set(columns).size, 1, out);
});

Deno.test("aligned columns pad to the widest label, cut or wrap the ones past the limit", () => {
  const rows = [
    { label: "/a", detail: "one" },
    { label: "/bbbb [x]", detail: "two" },
    { label: "/宽字", detail: "three" },
    { label: "/no-detail" },
  ];
  assert.deepEqual(alignColumns(rows, 40).map((r) => `${r.label}|${r.detail ?? ""}`), [
    "/a        |one",
    "/bbbb [x] |two",
    "/宽字     |three",
    "/no-detail|",
  ]);
  const long = [{ label: "/memory [forgotten | <id> | restore]", detail: "facts" }, ...rows];
  const cut = alignColumns(long, 12);
  assert.equal(cut[0].label, "/memory [fo…");
  assert.equal(stringWidth(cut[1].label), 12);
  const wrapped = alignColumns(long, 12, "wrap");
  assert.equal(wrapped[0].label, `/memory [forgotten | <id> | restore]\n${" ".repeat(10)}`);
  assert.equal(wrapped[1].label, "/a        ", "the column is the widest label that fits");
});
