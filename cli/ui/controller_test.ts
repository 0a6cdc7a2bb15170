import assert from "node:assert/strict";
import { join } from "node:path";
import type { FakeStep, RecordedRequest } from "../../tests/fake_llm/mod.ts";
import { startUiSession } from "../../tests/support/ui_session.ts";
import type { CustomCommand } from "../../core/commands/mod.ts";
import type { McpView } from "./hooks.ts";
import { hideComposer } from "./overlays.ts";

interface WireMessage {
  role: string;
  content: string;
}

function wire(req: RecordedRequest):
  & { model: string; messages: WireMessage[] }
  & Record<
    string,
    unknown
  > {
  return req.body as { model: string; messages: WireMessage[] };
}

function lastUser(req: RecordedRequest): string {
  return wire(req).messages.findLast((m) => m.role === "user")?.content ?? "";
}

const ENTER = { return: true };

Deno.test("a typed prompt streams into finished items and updates the status line", async () => {
  const s = await startUiSession({
    script: [{
      reasoning: "Think first.",
      text: "First paragraph.\n\nSecond **bold** paragraph.",
      usage: { prompt_tokens: 1000, prompt_cache_hit_tokens: 400, prompt_cache_miss_tokens: 600 },
    }],
  });
  try {
    s.type("hello there");
    assert.equal(s.controller.getSnapshot().editor.text, "hello there");
    s.press(ENTER);
    assert.equal(s.controller.getSnapshot().editor.text, "");
    await s.controller.idle();
    assert.deepEqual(s.lines().slice(1), [
      "> hello there",
      "thought: Think first.",
      "First paragraph.",
      "Second **bold** paragraph.",
    ]);
    const snap = s.controller.getSnapshot();
    assert.equal(snap.live.text, "");
    assert.equal(snap.status.lastPromptTokens, 1000);
    assert.equal(snap.status.totals.cacheHitTokens, 400);
    assert.equal(snap.status.model, "fake/fake-model");
    assert.equal(snap.status.contextWindow, 128000);
    assert.equal(snap.busy, undefined);
  } finally {
    await s.close();
  }
});

Deno.test("an edit waits in a modal approval overlay; allowing once runs it", async () => {
  const s = await startUiSession({
    files: { "math.js": "let x = a - b;\n" },
    script: (req) =>
      wire(req).messages.at(-1)!.role === "tool" ? { text: "Done." } : {
        toolCalls: [{
          name: "edit_file",
          arguments: JSON.stringify({ path: "math.js", old_string: "a - b", new_string: "a + b" }),
        }],
      },
  });
  try {
    s.type("fix it");
    s.press(ENTER);
    await s.until(() => s.controller.getSnapshot().overlay?.kind === "approval", "approval");
    const overlay = s.controller.getSnapshot().overlay!;
    assert.equal(hideComposer(overlay), true);
    // Typing while the prompt is open does not reach the composer.
    s.type("x");
    assert.equal(s.controller.getSnapshot().editor.text, "");
    s.press({ downArrow: true });
    s.press({ upArrow: true });
    s.press(ENTER);
    await s.controller.idle();
    assert.equal(await Deno.readTextFile(join(s.repo, "math.js")), "let x = a + b;\n");
    const lines = s.lines();
    assert.ok(lines.some((l) => l.startsWith("tool edit_file:")), lines.join("\n"));
    assert.ok(lines.some((l) => /^approval once: /.test(l)), lines.join("\n"));
    assert.equal(lines.at(-1), "Done.");
  } finally {
    await s.close();
  }
});

Deno.test("Esc on the approval overlay denies the call", async () => {
  const s = await startUiSession({
    files: { "math.js": "let x = a - b;\n" },
    script: (req) =>
      wire(req).messages.at(-1)!.role === "tool" ? { text: "Understood." } : {
        toolCalls: [{
          name: "write_file",
          arguments: JSON.stringify({ path: "math.js", content: "gone\n" }),
        }],
      },
  });
  try {
    s.type("overwrite it");
    s.press(ENTER);
    await s.until(() => s.controller.getSnapshot().overlay?.kind === "approval", "approval");
    s.press({ escape: true });
    await s.controller.idle();
    assert.equal(await Deno.readTextFile(join(s.repo, "math.js")), "let x = a - b;\n");
    assert.ok(s.lines().some((l) => l.startsWith("tool write_file (error)")), s.lines().join("\n"));
  } finally {
    await s.close();
  }
});

Deno.test("Ctrl-C cancels the running turn, and a second Ctrl-C exits", async () => {
  const s = await startUiSession({
    script: [{ hang: "mid-stream", text: "Partial answer that never ", chunkBytes: 8 }],
  });
  try {
    s.type("slow");
    s.press(ENTER);
    await s.until(() => s.controller.getSnapshot().live.text.includes("Partial"), "partial text");
    s.press({ ctrl: true }, "c");
    await s.controller.idle();
    const [partial, end] = s.lines().slice(-2);
    assert.match(partial, /^Partial/);
    assert.equal(end, "end: cancelled");
    assert.equal(s.exits, 0);
    assert.match(s.controller.getSnapshot().hint ?? "", /Ctrl-C again/);
    s.press({ ctrl: true }, "c");
    assert.equal(s.exits, 1);
  } finally {
    await s.close();
  }
});

Deno.test("Ctrl-C on an idle prompt clears it and arms exit; other keys disarm", async () => {
  const s = await startUiSession({ script: [] });
  try {
    s.type("draft");
    s.press({ ctrl: true }, "c");
    assert.equal(s.controller.getSnapshot().editor.text, "");
    s.type("a");
    s.press({ ctrl: true }, "c");
    assert.equal(s.exits, 0);
    s.press({ ctrl: true }, "c");
    assert.equal(s.exits, 1);
    assert.equal(s.controller.getSnapshot().exiting, true);
  } finally {
    await s.close();
  }
});

Deno.test("prompts sent while a turn runs are queued and run in order", async () => {
  const s = await startUiSession({
    script: (req) => ({
      text: `answer to ${lastUser(req).match(/(first|second|third)/)?.[1]}`,
      delayMs: 20,
    }),
  });
  try {
    for (const word of ["first", "second", "third"]) {
      s.type(word);
      s.press(ENTER);
    }
    assert.deepEqual(s.controller.getSnapshot().queued, ["second", "third"]);
    await s.controller.idle();
    assert.deepEqual(s.lines().slice(1), [
      "> first",
      "answer to first",
      "> second",
      "answer to second",
      "> third",
      "answer to third",
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("multi-line input: backslash-Enter, Alt-Enter and Ctrl-J add lines; history recalls", async () => {
  const s = await startUiSession({ script: (req) => ({ text: `got ${lastUser(req).length}` }) });
  try {
    s.type("one\\");
    s.press(ENTER);
    s.type("two");
    s.press({ return: true, meta: true });
    s.type("three");
    s.press({ ctrl: true }, "j");
    s.type("four");
    assert.equal(s.controller.getSnapshot().editor.text, "one\ntwo\nthree\nfour");
    s.press(ENTER);
    await s.controller.idle();
    assert.ok(s.lines().includes("> one\ntwo\nthree\nfour"));
    // Up on the first line recalls history; Down returns to the (empty) draft.
    s.press({ upArrow: true });
    assert.equal(s.controller.getSnapshot().editor.text, "one\ntwo\nthree\nfour");
    s.press({ downArrow: true });
    s.press({ downArrow: true });
    s.press({ downArrow: true });
    s.press({ downArrow: true });
    assert.equal(s.controller.getSnapshot().editor.text, "");
    // Text and Enter arriving in one read submit.
    s.type("fast typing\r");
    await s.controller.idle();
    assert.ok(s.lines().includes("> fast typing"));
    // Pasted text keeps its newlines and does not submit.
    s.controller.handlePaste("pasted\r\nlines");
    assert.equal(s.controller.getSnapshot().editor.text, "pasted\nlines");
  } finally {
    await s.close();
  }
});

const GREET: CustomCommand = {
  name: "greet",
  description: "Greet someone",
  argumentHint: "<name>",
  template: "Please greet $1 ($ARGUMENTS) for $$5.",
  path: "/x/greet.md",
  scope: "project",
  frontmatter: {},
};

Deno.test("custom commands expand their template; unknown commands reach no model", async () => {
  const s = await startUiSession({ script: [{ text: "Hi Ada!" }], commands: [GREET] });
  try {
    s.type("/nosuch thing");
    s.press(ENTER);
    await s.controller.idle();
    assert.match(s.lines().at(-1)!, /Unknown command \/nosuch/);
    assert.equal(s.fake.requests.length, 0);
    s.type("/greet Ada Lovelace");
    s.press(ENTER);
    await s.controller.idle();
    assert.equal(s.fake.requests.length, 1);
    assert.match(lastUser(s.fake.requests[0]), /Please greet Ada \(Ada Lovelace\) for \$5\./);
    assert.deepEqual(s.lines().slice(-2), ["> /greet Ada Lovelace", "Hi Ada!"]);
  } finally {
    await s.close();
  }
});

Deno.test("slash completion lists commands, Tab completes, Esc dismisses, Enter runs", async () => {
  const s = await startUiSession({ script: [], commands: [GREET] });
  try {
    s.type("/");
    let overlay = s.controller.getSnapshot().overlay;
    assert.equal(overlay?.kind, "slash");
    assert.equal(hideComposer(overlay), false);
    s.type("gr");
    overlay = s.controller.getSnapshot().overlay;
    assert.ok(overlay?.kind === "slash");
    assert.deepEqual(overlay.items.map((i) => i.name), ["greet"]);
    s.press({ tab: true });
    assert.equal(s.controller.getSnapshot().editor.text, "/greet ");
    assert.equal(s.controller.getSnapshot().overlay, undefined);
    // Enter on a command that takes arguments completes it instead of running it.
    s.press({ ctrl: true }, "u");
    s.type("/gre");
    s.press(ENTER);
    assert.equal(s.controller.getSnapshot().editor.text, "/greet ");
    assert.equal(s.fake.requests.length, 0);
    s.press({ ctrl: true }, "u");
    s.type("/hel");
    s.press({ escape: true });
    assert.equal(s.controller.getSnapshot().overlay, undefined);
    s.press({ backspace: true });
    assert.equal(s.controller.getSnapshot().overlay?.kind, "slash");
    s.type("l");
    s.press(ENTER);
    await s.controller.idle();
    const help = s.controller.getSnapshot().overlay;
    assert.ok(help?.kind === "help");
    assert.ok(help.lines.some((l) => l.includes("/greet <name>")));
    s.press({ escape: true });
    assert.equal(s.controller.getSnapshot().overlay, undefined);
  } finally {
    await s.close();
  }
});

Deno.test("@ completion lists one level; Tab completes a directory and keeps going", async () => {
  const s = await startUiSession({
    script: [],
    files: { "src/lib/util.ts": "", "src/main.ts": "", "setup.md": "" },
  });
  try {
    s.type("read @s");
    await s.until(() => s.controller.getSnapshot().overlay?.kind === "mention", "mention");
    let overlay = s.controller.getSnapshot().overlay;
    assert.ok(overlay?.kind === "mention");
    assert.deepEqual(overlay.items.map((i) => i.value), ["src/", "setup.md"]);
    s.press({ tab: true });
    assert.equal(s.controller.getSnapshot().editor.text, "read @src/");
    await s.until(() => {
      const o = s.controller.getSnapshot().overlay;
      return o?.kind === "mention" && o.items[0]?.value === "src/lib/";
    }, "next level");
    overlay = s.controller.getSnapshot().overlay;
    assert.ok(overlay?.kind === "mention");
    assert.deepEqual(overlay.items.map((i) => i.value), ["src/lib/", "src/main.ts"]);
    s.press({ downArrow: true });
    s.press(ENTER);
    assert.equal(s.controller.getSnapshot().editor.text, "read @src/main.ts ");
    assert.equal(s.controller.getSnapshot().overlay, undefined);
  } finally {
    await s.close();
  }
});

Deno.test("@file references are attached; mentions and e-mails stay text", async () => {
  const s = await startUiSession({
    files: { "notes.txt": "pineapple\n" },
    script: [{ text: "ok" }],
  });
  try {
    s.type("see @notes.txt and @nobody, mail me@example.com");
    s.press(ENTER);
    await s.controller.idle();
    const sent = lastUser(s.fake.requests[0]);
    assert.match(sent, /see @notes\.txt and @nobody, mail me@example\.com/);
    assert.match(sent, /<referenced-file path="notes\.txt">\npineapple\n<\/referenced-file>/);
    assert.equal(sent.match(/<referenced-/g)?.length, 1);
    assert.deepEqual(s.lines().slice(1, 3), [
      "> see @notes.txt and @nobody, mail me@example.com",
      "+ notes.txt (10 B)",
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("/model switches the model and keeps the conversation", async () => {
  const s = await startUiSession({
    script: (req) => ({ text: `from ${wire(req).model}` }),
    // A second provider on the same fake server. The host reads configuration once.
    toml: (base) =>
      `\n[[providers]]\nname = "fake2"\nkind = "openai"\nbase_url = "${base}"\n` +
      `models = ["other-model"]\napi_key_env = "REASONIX_E2E_KEY"\ncontext_window = 64000\n`,
  });
  try {
    s.type("first question");
    s.press(ENTER);
    await s.controller.idle();
    s.type("/model");
    s.press(ENTER);
    await s.controller.idle();
    const picker = s.controller.getSnapshot().overlay;
    assert.ok(picker?.kind === "picker" && picker.purpose === "model");
    assert.ok(picker.items.some((i) => i.value === "fake/fake-model" && i.current));
    s.press({ escape: true });
    s.type("/model nosuch/thing");
    s.press(ENTER);
    await s.controller.idle();
    assert.match(s.lines().at(-1)!, /^error: /);
    assert.equal(s.controller.getSnapshot().status.model, "fake/fake-model");
    s.type("/model fake2/other-model");
    s.press(ENTER);
    await s.controller.idle();
    assert.equal(s.lines().at(-1), "info: Model: fake2/other-model.");
    assert.equal(s.controller.getSnapshot().status.contextWindow, 64000);
    s.type("second question");
    s.press(ENTER);
    await s.controller.idle();
    const last = wire(s.fake.requests.at(-1)!);
    assert.equal(last.model, "other-model");
    // The conversation survived the switch.
    assert.ok(last.messages.some((m) => m.content.includes("first question")));
    assert.equal(s.lines().at(-1), "from other-model");
  } finally {
    await s.close();
  }
});

Deno.test("/effort sets the reasoning effort sent to the model", async () => {
  const s = await startUiSession({ script: (_req) => ({ text: "ok" }) });
  try {
    s.type("/effort extreme");
    s.press(ENTER);
    await s.controller.idle();
    assert.match(s.lines().at(-1)!, /Unknown effort "extreme"/);
    s.type("/effort");
    s.press(ENTER);
    await s.controller.idle();
    const picker = s.controller.getSnapshot().overlay;
    assert.ok(picker?.kind === "picker" && picker.purpose === "effort");
    s.press({ downArrow: true });
    s.press({ downArrow: true });
    s.press(ENTER); // low → medium → high
    await s.until(() => s.controller.getSnapshot().status.effort === "high", "effort high");
    await s.controller.idle();
    s.type("go");
    s.press(ENTER);
    await s.controller.idle();
    assert.equal(wire(s.fake.requests.at(-1)!).reasoning_effort, "high");
  } finally {
    await s.close();
  }
});

Deno.test("/new starts a fresh conversation and /clear also clears the screen", async () => {
  const s = await startUiSession({ script: (_req) => ({ text: "answer" }) });
  try {
    s.type("remember me");
    s.press(ENTER);
    await s.controller.idle();
    const firstSession = s.backend.info().sessionId;
    s.type("/new");
    s.press(ENTER);
    await s.controller.idle();
    assert.notEqual(s.backend.info().sessionId, firstSession);
    assert.match(s.lines().at(-1)!, /New conversation/);
    s.type("again");
    s.press(ENTER);
    await s.controller.idle();
    assert.ok(
      !wire(s.fake.requests.at(-1)!).messages.some((m) => m.content.includes("remember me")),
    );
    const epoch = s.controller.getSnapshot().epoch;
    s.type("/clear");
    s.press(ENTER);
    await s.controller.idle();
    assert.equal(s.clears, 1);
    assert.equal(s.controller.getSnapshot().epoch, epoch + 1);
    assert.equal(s.lines().length, 1);
    assert.equal(s.controller.getSnapshot().status.totals.promptTokens, 0);
  } finally {
    await s.close();
  }
});

Deno.test("/resume lists saved sessions and reopens one with its history", async () => {
  const s = await startUiSession({ script: (req) => ({ text: `echo: ${lastUser(req).length}` }) });
  try {
    s.type("a question worth keeping");
    s.press(ENTER);
    await s.controller.idle();
    const saved = s.backend.info().sessionId;
    s.type("/new");
    s.press(ENTER);
    await s.controller.idle();
    s.type("/resume");
    s.press(ENTER);
    await s.controller.idle();
    const picker = s.controller.getSnapshot().overlay;
    assert.ok(picker?.kind === "picker" && picker.purpose === "resume");
    assert.equal(picker.items[0].value, saved);
    assert.match(picker.items[0].label, /a question worth keeping/);
    s.press(ENTER);
    await s.until(() => s.backend.info().sessionId === saved, "resumed session");
    await s.controller.idle();
    const lines = s.lines();
    assert.ok(lines.some((l) => l.startsWith("info: Resumed session")), lines.join("\n"));
    assert.ok(lines.filter((l) => l === "> a question worth keeping").length >= 2);
  } finally {
    await s.close();
  }
});

Deno.test("/cost shows usage; /compact reports; /mcp says when MCP is not connected", async () => {
  const s = await startUiSession({
    script: (req): FakeStep =>
      lastUser(req).includes("compact") || wire(req).messages.length > 2
        ? { text: "<summary>We said hello.</summary>" }
        : { text: "hello" },
  });
  try {
    s.type("hi");
    s.press(ENTER);
    await s.controller.idle();
    s.type("/cost");
    s.press(ENTER);
    await s.controller.idle();
    const cost = s.lines().at(-1)!;
    assert.match(cost, /^panel Usage: Model: fake\/fake-model \| Requests: 1 \| Prompt tokens: /);
    s.type("/compact");
    s.press(ENTER);
    await s.controller.idle();
    assert.match(s.lines().at(-1)!, /^(info|warning): (Context|Nothing to compact)/);
    s.type("/mcp");
    s.press(ENTER);
    await s.controller.idle();
    assert.equal(s.lines().at(-1), "info: MCP is not connected in this session.");
  } finally {
    await s.close();
  }
});

Deno.test("/compact <instructions> sends them with the summary request", async () => {
  const summaryRequests: string[] = [];
  const s = await startUiSession({
    script: (req): FakeStep => {
      if (!lastUser(req).includes("<compaction-request>")) return { text: "hello" };
      summaryRequests.push(lastUser(req));
      return { text: "<summary>Hi.</summary>" };
    },
  });
  try {
    s.type("hi");
    s.press(ENTER);
    await s.controller.idle();
    s.type("/compact keep the greeting");
    s.press(ENTER);
    await s.controller.idle();
    assert.equal(summaryRequests.length, 1, s.lines().join("\n"));
    assert.match(summaryRequests[0], /instructions for this summary:\nkeep the greeting$/);
    assert.match(s.lines().at(-1)!, /^info: Context/);
  } finally {
    await s.close();
  }
});

// A real 1x1 PNG.
const PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

type ImageWire = { messages: { role: string; content: unknown }[] };

Deno.test("@image.png attaches the image to the message for a model that reads images", async () => {
  const s = await startUiSession({ script: [{ text: "A grey pixel." }], toml: "images = true\n" });
  try {
    await Deno.writeFile(join(s.repo, "shot.png"), PNG);
    s.type("what is in @shot.png?");
    s.press(ENTER);
    await s.controller.idle();
    assert.ok(s.lines().some((l) => /shot\.png \(image, \d+ B\)/.test(l)), s.lines().join("\n"));
    const body = s.fake.requests[0].body as ImageWire;
    const parts = body.messages.at(-1)!.content as {
      type: string;
      text?: string;
      image_url?: { url: string };
    }[];
    assert.equal(
      parts.at(-1)?.image_url?.url,
      `data:image/png;base64,${btoa(String.fromCharCode(...PNG))}`,
    );
    assert.match(parts[0].text!, /<referenced-image path="shot\.png">/);
  } finally {
    await s.close();
  }
});

Deno.test("@image.png for a text-only model without a vision model is dropped with a warning", async () => {
  const s = await startUiSession({ script: [{ text: "I cannot see it." }] });
  try {
    await Deno.writeFile(join(s.repo, "shot.png"), PNG);
    s.type("what is in @shot.png?");
    s.press(ENTER);
    await s.controller.idle();
    assert.ok(
      s.lines().some((l) => l.startsWith("warning: 1 image(s) dropped:")),
      s.lines().join("\n"),
    );
    assert.ok(!s.fake.requests[0].bodyText.includes("data:image/png"), "no image was sent");
  } finally {
    await s.close();
  }
});

function fakeMcp(calls: string[]): McpView {
  return {
    servers: () => [{
      name: "docs",
      phase: "ready",
      transport: "stdio",
      tools: 2,
      prompts: 1,
      resources: 1,
    }],
    prompts: () => [{
      command: "mcp__docs__review",
      server: "docs",
      prompt: "review",
      description: "Review a topic",
      arguments: [{ name: "topic", required: true }, { name: "tone", required: false }],
    }],
    resources: () => [{ server: "docs", uri: "mem://guide", name: "Guide" }],
    getPrompt: ({ server, prompt, args }) => {
      calls.push(`prompt ${server} ${prompt} ${JSON.stringify(args)}`);
      return Promise.resolve(`Review ${args.topic} in a ${args.tone ?? "neutral"} tone.`);
    },
    readResource: (server, uri) => {
      calls.push(`resource ${server} ${uri}`);
      return Promise.resolve("The guide says: be kind.");
    },
  };
}

Deno.test("MCP: /mcp lists servers, /mcp__… runs a prompt, @server:uri reads a resource", async () => {
  const calls: string[] = [];
  const s = await startUiSession({ script: (_req) => ({ text: "done" }), mcp: fakeMcp(calls) });
  try {
    s.type("/mcp");
    s.press(ENTER);
    await s.controller.idle();
    const overlay = s.controller.getSnapshot().overlay;
    assert.ok(overlay?.kind === "mcp");
    assert.equal(overlay.lines[0], "● docs ready · stdio · 2 tools · 1 prompts · 1 resources");
    s.press({ downArrow: true });
    const scrolled = s.controller.getSnapshot().overlay;
    assert.ok(scrolled?.kind === "mcp" && scrolled.offset === 1);
    s.press({ escape: true });

    s.type("/mcp__docs__review");
    s.press(ENTER);
    await s.controller.idle();
    assert.match(s.lines().at(-1)!, /needs topic/);

    s.type("/mcp__docs__review caching very friendly");
    s.press(ENTER);
    await s.controller.idle();
    assert.equal(calls[0], 'prompt docs review {"topic":"caching","tone":"very friendly"}');
    assert.match(lastUser(s.fake.requests[0]), /Review caching in a very friendly tone\./);

    s.type("@do");
    await s.until(() => s.controller.getSnapshot().overlay?.kind === "mention", "mention");
    s.press({ tab: true });
    assert.equal(s.controller.getSnapshot().editor.text, "@docs:");
    await s.until(() => {
      const o = s.controller.getSnapshot().overlay;
      return o?.kind === "mention" && o.items[0]?.value === "docs:mem://guide";
    }, "resource completion");
    s.press({ tab: true });
    s.type("please");
    s.press(ENTER);
    await s.controller.idle();
    assert.equal(calls[1], "resource docs mem://guide");
    assert.match(
      lastUser(s.fake.requests[1]),
      /<referenced-resource server="docs" uri="mem:\/\/guide">\nThe guide says: be kind\./,
    );
  } finally {
    await s.close();
  }
});
