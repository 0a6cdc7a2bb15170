import assert from "node:assert/strict";
import { renderToString } from "ink";
import { createElement } from "react";
import { OverlayView } from "./components/overlay_view.tsx";
import { makeStyles } from "./style.ts";
import { join } from "node:path";
import type { RecordedRequest } from "../../tests/fake_llm/mod.ts";
import { startUiSession } from "../../tests/support/ui_session.ts";

function lastMessage(req: RecordedRequest): { role: string; content: string } {
  return (req.body as { messages: { role: string; content: string }[] }).messages.at(-1)!;
}

const ENTER = { return: true };
const SHIFT_TAB = { tab: true, shift: true };

/** Edits math.js when asked, then says what the tool answered. */
function editScript(req: RecordedRequest) {
  const last = lastMessage(req);
  if (last.role === "tool") return { text: `Tool said: ${last.content.split("\n")[0]}` };
  return {
    toolCalls: [{
      name: "edit_file",
      arguments: JSON.stringify({ path: "math.js", old_string: "a - b", new_string: "a + b" }),
    }],
  };
}

/** The status line's mode, with `+plan` while plan mode is on. */
function shown(
  s: { controller: { getSnapshot(): { status: { mode?: string; plan?: boolean } } } },
) {
  const status = s.controller.getSnapshot().status;
  return `${status.mode}${status.plan ? "+plan" : ""}`;
}

Deno.test("Shift+Tab cycles ask → accept-edits → auto → plan → ask through the host, shown on the status line", async () => {
  const s = await startUiSession({ script: [] });
  try {
    const modes = [shown(s)];
    for (let i = 0; i < 4; i++) {
      s.press(SHIFT_TAB);
      modes.push(shown(s));
      if (i === 2) {
        // Plan mode is the host's, beside the preset it keeps.
        assert.equal(s.host.planMode.active, true);
        assert.equal(s.host.permissionMode, "auto");
        assert.match(s.controller.getSnapshot().hint ?? "", /Plan mode: on .*auto stays/);
      }
    }
    assert.deepEqual(modes, ["ask", "accept-edits", "auto", "auto+plan", "ask"]);
    assert.equal(s.host.planMode.active, false);
    // The host's permission layer changed, not a copy in the UI.
    s.press(SHIFT_TAB);
    assert.equal(s.host.permissionMode, "accept-edits");
    assert.equal(s.host.permissions.policy.preset.name, "accept-edits");
    assert.match(s.controller.getSnapshot().hint ?? "", /Permission mode: accept-edits/);
    // Plain Tab on an empty prompt changes nothing.
    s.press({ tab: true });
    assert.equal(s.host.permissionMode, "accept-edits");
  } finally {
    await s.close();
  }
});

Deno.test("after Shift+Tab to accept-edits an edit runs without asking; /permissions ask asks again", async () => {
  const s = await startUiSession({ files: { "math.js": "let x = a - b;\n" }, script: editScript });
  try {
    s.press(SHIFT_TAB);
    s.type("fix it");
    s.press(ENTER);
    await s.until(
      () =>
        s.controller.getSnapshot().overlay?.kind === "approval" ||
        s.lines().some((l) => l.startsWith("Tool said")),
      "the edit or its approval",
    );
    assert.notEqual(s.controller.getSnapshot().overlay?.kind, "approval");
    await s.controller.idle();
    assert.equal(await Deno.readTextFile(join(s.repo, "math.js")), "let x = a + b;\n");

    await s.controller.submit("/permissions ask");
    assert.equal(s.host.permissionMode, "ask");
    assert.ok(
      s.lines().some((l) => /^info: Permission mode: ask — /.test(l)),
      s.lines().join("\n"),
    );
    await Deno.writeTextFile(join(s.repo, "math.js"), "let x = a - b;\n");
    s.type("fix it again");
    s.press(ENTER);
    await s.until(() => s.controller.getSnapshot().overlay?.kind === "approval", "approval");
    s.press({ escape: true });
    await s.controller.idle();
  } finally {
    await s.close();
  }
});

Deno.test("/permissions opens a picker of the session modes; yolo is refused mid-session", async () => {
  const s = await startUiSession({ script: [] });
  try {
    await s.controller.submit("/permissions");
    const picker = s.controller.getSnapshot().overlay;
    assert.ok(picker?.kind === "picker" && picker.purpose === "permissions");
    assert.deepEqual(picker.items.map((i) => i.value), ["ask", "accept-edits", "auto"]);
    assert.equal(picker.items.find((i) => i.current)?.value, "ask");
    s.press({ downArrow: true });
    s.press(ENTER);
    await s.until(() => s.host.permissionMode === "accept-edits", "mode from the picker");

    await s.controller.submit("/permissions yolo");
    assert.equal(s.host.permissionMode, "accept-edits");
    assert.match(s.lines().at(-1) ?? "", /^error: .*cannot switch the permission mode/);
  } finally {
    await s.close();
  }
});

// read-only is not tried here: it gives up the test process's own write permission for good.
Deno.test("in a session started in yolo mode Shift+Tab toggles plan mode only; /permissions cannot change it", async () => {
  const s = await startUiSession({ script: [], toml: '\n[permissions]\nmode = "yolo"\n' });
  try {
    s.press(SHIFT_TAB);
    assert.equal(s.host.permissionMode, "yolo");
    assert.equal(shown(s), "yolo+plan");
    s.press(SHIFT_TAB);
    assert.equal(shown(s), "yolo");
    await s.controller.submit("/permissions ask");
    assert.equal(s.host.permissionMode, "yolo");
    assert.match(s.lines().at(-1) ?? "", /cannot switch the permission mode/);
  } finally {
    await s.close();
  }
});

Deno.test("Ctrl-C at an approval denies the call, says so and stops the turn", async () => {
  const s = await startUiSession({ files: { "math.js": "let x = a - b;\n" }, script: editScript });
  try {
    s.type("fix it");
    s.press(ENTER);
    await s.until(() => s.controller.getSnapshot().overlay?.kind === "approval", "approval");
    s.press({ ctrl: true }, "c");
    await s.controller.idle();
    const lines = s.lines();
    assert.equal(await Deno.readTextFile(join(s.repo, "math.js")), "let x = a - b;\n");
    assert.ok(lines.some((l) => l.startsWith("approval deny: edit_file")), lines.join("\n"));
    assert.ok(
      lines.includes("info: Ctrl-C denied the call and stopped the turn."),
      lines.join("\n"),
    );
    const card = lines.find((l) => l.startsWith("tool edit_file"));
    assert.ok(card && !/Cancelled by the user/.test(card), lines.join("\n"));
    assert.match(card, /denied/i);
    // The turn stopped: the model got no request after the denial.
    assert.equal(s.fake.requests.length, 1);
    // Not armed to exit, and no stale "Cancelling…" line.
    const hint = s.controller.getSnapshot().hint ?? "";
    assert.doesNotMatch(hint, /Cancelling/);
    s.press({ ctrl: true }, "c");
    assert.equal(s.exits, 0);
  } finally {
    await s.close();
  }
});

Deno.test("the Ctrl-C hint clears itself when the double-press window has passed", async () => {
  const s = await startUiSession({ script: [] });
  try {
    s.press({ ctrl: true }, "c");
    assert.match(s.controller.getSnapshot().hint ?? "", /Ctrl-C again/);
    await s.until(() => s.controller.getSnapshot().hint === undefined, "hint cleared", 5000);
    s.press({ ctrl: true }, "c");
    assert.equal(s.exits, 0, "the window closed with the hint");
  } finally {
    await s.close();
  }
});

Deno.test("/model marks models whose key is missing", async () => {
  const s = await startUiSession({
    script: [],
    toml: (url) =>
      `\n[[providers]]\nname = "nokey"\nkind = "openai"\nbase_url = "${url}"\nmodels = ["m1"]\n` +
      `api_key_env = "REASONIX_TEST_ABSENT_KEY"\ncontext_window = 64000\n`,
  });
  try {
    await s.controller.submit("/model");
    const picker = s.controller.getSnapshot().overlay;
    assert.ok(picker?.kind === "picker" && picker.purpose === "model");
    const fake = picker.items.find((i) => i.value === "fake/fake-model");
    const nokey = picker.items.find((i) => i.value === "nokey/m1");
    assert.equal(fake?.label, "fake/fake-model");
    assert.equal(fake?.detail, undefined);
    assert.equal(nokey?.label, "nokey/m1 ✗ no key");
    assert.match(nokey?.detail ?? "", /REASONIX_TEST_ABSENT_KEY is not set/);
  } finally {
    await s.close();
  }
});

const PLAN = "## Plan\n\n1. Fix `add` in **math.js**.\n2. Run the tests.";

/** In plan mode: try the edit, hand in the plan when refused, edit again once approved. */
function planScript(req: RecordedRequest) {
  const last = lastMessage(req);
  const exit = {
    toolCalls: [{
      name: "use_capability",
      arguments: JSON.stringify({ capability: "exit_plan_mode", arguments: { plan: PLAN } }),
    }],
  };
  if (last.role === "user") return editScript(req);
  if (last.content.startsWith("Plan mode is on")) return exit;
  if (last.content.startsWith("The user did not approve")) return exit;
  if (last.content.startsWith("The user approved")) {
    return {
      toolCalls: [{
        name: "edit_file",
        arguments: JSON.stringify({ path: "math.js", old_string: "a - b", new_string: "a + b" }),
      }],
    };
  }
  return { text: `Tool said: ${last.content.split("\n")[0]}` };
}

Deno.test("/plan: writers refused, the plan overlay (keep planning, then approve), the edit in the same turn", async () => {
  const s = await startUiSession({ files: { "math.js": "let x = a - b;\n" }, script: planScript });
  try {
    await s.controller.submit("/plan");
    assert.equal(s.host.planMode.active, true);
    assert.equal(shown(s), "ask+plan");
    assert.match(s.lines().at(-1) ?? "", /^info: Plan mode: on/);
    s.type("fix it");
    s.press(ENTER);
    const planOverlay = () => {
      const o = s.controller.getSnapshot().overlay;
      return o?.kind === "approval" && o.request.kind === "plan" ? o : undefined;
    };
    await s.until(() => planOverlay() !== undefined, "the plan's approval");
    assert.equal(planOverlay()!.request.detail, PLAN);
    assert.equal(await Deno.readTextFile(join(s.repo, "math.js")), "let x = a - b;\n");
    // Keep planning: the model hands the plan in again and it is asked again.
    const first = planOverlay()!.request.id;
    s.press({}, "2");
    await s.until(() => (planOverlay()?.request.id ?? first) !== first, "the second plan approval");
    assert.equal(s.host.planMode.active, true);
    s.press({}, "1");
    // ask preset: the approved plan's window runs the edit without another prompt.
    await s.until(
      () => s.lines().some((l) => l.startsWith("Tool said: Edited")),
      "the edit's result",
    );
    await s.controller.idle();
    assert.equal(await Deno.readTextFile(join(s.repo, "math.js")), "let x = a + b;\n");
    assert.equal(s.host.planMode.active, false);
    assert.equal(shown(s), "ask");
    const requests = s.fake.requests.map((r) => JSON.stringify(r.body));
    assert.ok(requests.every((b) => b.includes("<plan-mode>")), "the block rode the turn");

    await s.controller.submit("/plan");
    assert.equal(s.host.planMode.active, true);
    await s.controller.submit("/plan");
    assert.equal(s.host.planMode.active, false);
    assert.match(s.lines().at(-1) ?? "", /^info: Plan mode: off — permission mode ask/);
  } finally {
    await s.close();
  }
});

Deno.test("the approval overlay renders a plan as Markdown with Approve and Keep planning", () => {
  const overlay = {
    kind: "approval" as const,
    request: {
      id: "approval-1",
      kind: "plan" as const,
      tool: "use_capability",
      summary: "Approve this plan and start carrying it out?",
      detail: PLAN,
    },
    selected: 0,
  };
  const screen = renderToString(
    createElement(OverlayView, { overlay, width: 80, maxLines: 30, styles: makeStyles(false) }),
    { columns: 80 },
  );
  assert.match(screen, /Approve this plan\?/);
  // Rendered: no `##`, no `**`, a numbered list.
  assert.match(screen, /Plan/);
  assert.doesNotMatch(screen, /##|\*\*/);
  assert.match(screen, /1\. Fix add in math\.js\./);
  assert.match(screen, /› 1\. Approve the plan and start/);
  assert.match(screen, /2\. Keep planning/);
  assert.doesNotMatch(screen, /Allow for this session/);
});
