import assert from "node:assert/strict";
import type { RecordedRequest } from "../../tests/fake_llm/mod.ts";
import { startUiSession } from "../../tests/support/ui_session.ts";

function last(req: RecordedRequest): { role: string; content: string } {
  return (req.body as { messages: { role: string; content: string }[] }).messages.at(-1)!;
}

// Session grants live on the host's permission gate, shared by every agent the UI makes, so
// "Allow for this session" lasts until Reasonix exits (docs/PERMISSIONS.md).
Deno.test("an 'allow for this session' bash grant still holds after /new and /clear", async () => {
  const s = await startUiSession({
    script: (req) =>
      last(req).role === "tool" ? { text: `Ran: ${last(req).content.split("\n")[0]}` } : {
        toolCalls: [{ name: "bash", arguments: JSON.stringify({ command: "echo granted" }) }],
      },
  });
  try {
    s.type("run echo");
    s.press({ return: true });
    await s.until(() => s.controller.getSnapshot().overlay?.kind === "approval", "approval");
    s.press({}, "2");
    await s.controller.idle();
    assert.ok(s.lines().includes("Ran: granted"), s.lines().join("\n"));
    for (const command of ["/new", "/clear"]) {
      await s.controller.submit(command);
      s.type("run echo again");
      s.press({ return: true });
      await s.until(
        () => s.broker.current() !== undefined || s.lines().at(-1) === "Ran: granted",
        "the command or its approval",
      );
      assert.equal(s.broker.current(), undefined, `asked again after ${command}`);
      await s.controller.idle();
    }
  } finally {
    await s.close();
  }
});
