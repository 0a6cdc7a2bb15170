/**
 * End to end: the real interactive program (`deno task reasonix`) in a tmux terminal against
 * the fake LLM server. Types a prompt and sees the streamed answer, approves an edit, cancels
 * a turn with Ctrl-C, runs a custom command, attaches a file with `@`, and exits with Ctrl-C.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { interactiveArgv, makeHome, makeRepo, runReasonix } from "./support.ts";
import { TmuxSession } from "./tmux.ts";

interface WireMessage {
  role: string;
  content: string;
}

function messages(req: RecordedRequest): WireMessage[] {
  return (req.body as { messages: WireMessage[] }).messages;
}

function lastUser(req: RecordedRequest): string {
  return messages(req).findLast((m) => m.role === "user")?.content ?? "";
}

/** Answers by what the newest user turn asks for. */
function script(req: RecordedRequest): FakeStep {
  const last = messages(req).at(-1)!;
  const user = lastUser(req);
  if (user.includes("say hello")) {
    return { text: "Hello from the fake model. **Streaming** works.", delayMs: 5 };
  }
  if (user.includes("fix the add function")) {
    if (last.role === "tool") return { text: "Edited math.js: add now adds." };
    return {
      toolCalls: [{
        name: "edit_file",
        arguments: JSON.stringify({ path: "math.js", old_string: "a - b", new_string: "a + b" }),
      }],
    };
  }
  if (user.includes("slow story")) {
    return {
      hang: "mid-stream",
      text: "Once upon a time there was a very long story that never ended because ",
      chunkBytes: 16,
    };
  }
  if (user.includes("Please greet Alice warmly.")) return { text: "Greetings delivered to Alice." };
  if (user.includes('<referenced-file path="notes.txt">')) {
    const word = /The secret word is (\w+)/.exec(user)?.[1] ?? "missing";
    return { text: `The note says the secret word is ${word}.` };
  }
  return { text: `Unexpected request: ${user.slice(0, 80)}` };
}

Deno.test({
  name: "interactive session: stream, approve an edit, cancel, custom command, @file, exit",
  ignore: !(await TmuxSession.available()),
  fn: async () => {
    const fake = await startFakeLlm({ script });
    const repo = await makeRepo({
      "math.js": "export function add(a, b) {\n  return a - b;\n}\n",
      "notes.txt": "The secret word is pineapple.\n",
      ".reasonix/commands/greet.md":
        "---\ndescription: Greet someone\nargument-hint: <name>\n---\nPlease greet $1 warmly.\n",
    });
    const home = await makeHome(fake.url);
    const argv = interactiveArgv(home);
    const tmux = await TmuxSession.start(argv, { cwd: repo, width: 100, height: 40 });
    try {
      await tmux.waitFor("Ask anything", 60_000);

      // A prompt streams its answer, rendered as Markdown.
      await tmux.type("say hello");
      await tmux.keys("Enter");
      let screen = await tmux.waitFor("Hello from the fake model. Streaming works.");
      assert.match(screen, /› say hello/);

      // An edit asks for approval; allowing it once lets it run and shows the diff.
      await tmux.type("please fix the add function");
      await tmux.keys("Enter");
      screen = await tmux.waitFor("Allow this?");
      assert.match(screen, /edit_file/);
      assert.doesNotMatch(screen, /Ask anything/, "the approval overlay hides the composer");
      await tmux.keys("1");
      screen = await tmux.waitFor("Edited math.js: add now adds.");
      assert.match(screen, /\+\s+return a \+ b;/);
      assert.equal(
        await Deno.readTextFile(join(repo, "math.js")),
        "export function add(a, b) {\n  return a + b;\n}\n",
      );

      // Ctrl-C cancels a turn whose stream has stalled.
      await tmux.type("tell me a slow story");
      await tmux.keys("Enter");
      await tmux.waitFor("Once upon a time");
      await tmux.keys("C-c");
      screen = await tmux.waitFor("Cancelled");
      await tmux.waitFor("Ask anything");
      // Let the double-press window pass so the next Ctrl-C does not exit.
      await new Promise((r) => setTimeout(r, 2100));

      // A custom command from .reasonix/commands expands its template.
      await tmux.type("/greet Alice");
      await tmux.keys("Enter");
      await tmux.waitFor("Greetings delivered to Alice.");

      // An @file reference attaches the file to the turn.
      await tmux.type("what does @notes.txt say");
      await tmux.keys("Enter");
      screen = await tmux.waitFor("The note says the secret word is pineapple.");
      assert.match(screen, /\+ notes\.txt \(30 B\)/);

      // Two Ctrl-C presses leave the session cleanly.
      await tmux.keys("C-c");
      await tmux.waitFor("Press Ctrl-C again to exit");
      await tmux.keys("C-c");
      await tmux.waitFor("[exit 0]");

      const users = fake.requests.map(lastUser);
      assert.ok(users.some((u) => u.includes("Please greet Alice warmly.")));
      assert.ok(users.some((u) => u.includes("The secret word is pineapple.")));
      assert.ok(!users.some((u) => u.includes("/greet")), "the raw command is not sent");
    } catch (error) {
      throw new Error(
        `${(error as Error).message}\n--- final screen ---\n${await tmux.capture()}`,
        {
          cause: error,
        },
      );
    } finally {
      await tmux.kill();
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  },
});

/** Edits math.js or runs a command when asked; then reports what the tool said. */
function polishScript(req: RecordedRequest): FakeStep {
  const last = messages(req).at(-1)!;
  const user = lastUser(req);
  if (last.role === "tool") return { text: `Tool said: ${last.content.split("\n")[0]}` };
  if (user.includes("fix the add function")) {
    return {
      toolCalls: [{
        name: "edit_file",
        arguments: JSON.stringify({ path: "math.js", old_string: "a - b", new_string: "a + b" }),
      }],
    };
  }
  if (user.includes("run the tests")) {
    return {
      toolCalls: [{ name: "bash", arguments: JSON.stringify({ command: "echo tests-passed" }) }],
    };
  }
  return { text: `Unexpected request: ${user.slice(0, 80)}` };
}

Deno.test({
  name: "interactive polish: the diff in the approval, Ctrl-C denies, the command once, Shift+Tab",
  ignore: !(await TmuxSession.available()),
  fn: async () => {
    const fake = await startFakeLlm({ script: polishScript });
    const repo = await makeRepo({ "math.js": "export function add(a, b) {\n  return a - b;\n}\n" });
    const home = await makeHome(fake.url);
    const argv = interactiveArgv(home);
    const tmux = await TmuxSession.start(argv, { cwd: repo, width: 120, height: 40 });
    const visible = () => tmux.capture(0);
    try {
      await tmux.waitFor("Ask anything", 60_000);
      // The status line ends with the permission mode.
      await tmux.waitFor(/· ask\s*$/m);

      // The edit's approval shows the diff it would make, before anything is written.
      await tmux.type("please fix the add function");
      await tmux.keys("Enter");
      let screen = await tmux.waitFor(/\+\s+return a \+ b;/);
      assert.match(screen, /Allow this\?/);
      assert.match(screen, /-\s+return a - b;/);
      assert.equal(
        await Deno.readTextFile(join(repo, "math.js")),
        "export function add(a, b) {\n  return a - b;\n}\n",
      );

      // Ctrl-C at the approval denies it and says so; no "Cancelling…" line is left behind.
      await tmux.keys("C-c");
      screen = await tmux.waitFor("Ctrl-C denied the call and stopped the turn.");
      assert.match(screen, /✗ Denied: edit_file math\.js/);
      assert.doesNotMatch(screen, /Cancelled by the user while running/);
      await tmux.waitFor("Ask anything");
      assert.doesNotMatch(await visible(), /Cancelling/);
      assert.equal(
        await Deno.readTextFile(join(repo, "math.js")),
        "export function add(a, b) {\n  return a - b;\n}\n",
      );

      // A command's approval shows the command once, where it runs and its sandbox.
      await tmux.type("run the tests");
      await tmux.keys("Enter");
      screen = await tmux.waitFor("Run this command?");
      const overlay = (await visible()).slice((await visible()).indexOf("Run this command?"));
      assert.equal(overlay.split("echo tests-passed").length - 1, 1, overlay);
      assert.match(
        overlay,
        new RegExp(`in ${repo.replaceAll("/", "\\/")} · workspace-write sandbox`),
      );
      await tmux.keys("Escape");
      await tmux.waitFor("Tool said:");
      await tmux.waitFor("Ask anything");

      // Shift+Tab cycles the mode shown on the status line.
      await tmux.keys("BTab");
      await tmux.waitFor(/· accept-edits\s*$/m);
      await tmux.keys("BTab");
      await tmux.waitFor(/· auto\s*$/m);
      // Plan mode follows auto in the cycle and keeps the preset.
      await tmux.keys("BTab");
      await tmux.waitFor(/· auto · plan\s*$/m);
      await tmux.keys("BTab");
      await tmux.waitFor(/· ask\s*$/m);

      // In accept-edits the edit runs without a prompt.
      await tmux.keys("BTab");
      await tmux.waitFor(/· accept-edits\s*$/m);
      await tmux.type("please fix the add function");
      await tmux.keys("Enter");
      await tmux.waitFor(/Tool said: (?!The user denied)/);
      assert.equal(
        await Deno.readTextFile(join(repo, "math.js")),
        "export function add(a, b) {\n  return a + b;\n}\n",
      );
      await tmux.waitFor("Ask anything");
      await tmux.keys("C-d");
      await tmux.waitFor("[exit 0]");
    } catch (error) {
      throw new Error(
        `${(error as Error).message}\n--- final screen ---\n${await tmux.capture()}`,
        { cause: error },
      );
    } finally {
      await tmux.kill();
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test("bare reasonix off a terminal prints the usage instead of waiting", async () => {
  const repo = await makeRepo({});
  const home = await makeHome("http://127.0.0.1:9/v1");
  try {
    for (const args of [[], ["--continue"]]) {
      const result = await runReasonix(args, { cwd: repo, home });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /Usage:/);
      assert.match(result.stderr, /no terminal for an interactive session/);
      assert.equal(result.stdout, "");
    }
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
