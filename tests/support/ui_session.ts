/**
 * A real interactive-session controller for UI tests: a real host against the fake LLM
 * server, in a temporary repository and Reasonix home.
 *
 * @module
 */
import { type CliHost, openHost } from "../../cli/host.ts";
import { HostBackend } from "../../cli/ui/backend.ts";
import { UiApprovalBroker } from "../../cli/ui/broker.ts";
import { ChatController, type KeyInfo, NO_KEY } from "../../cli/ui/controller.ts";
import type { McpView } from "../../cli/ui/hooks.ts";
import type { Item } from "../../cli/ui/transcript.ts";
import type { CustomCommand } from "../../core/commands/mod.ts";
import { type FakeLlm, type FakeScript, startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo } from "../e2e/support.ts";

/** A running controller and everything around it. */
export interface UiSession {
  controller: ChatController;
  backend: HostBackend;
  host: CliHost;
  broker: UiApprovalBroker;
  fake: FakeLlm;
  repo: string;
  home: string;
  /** How often the controller asked to leave / to clear the screen. */
  exits: number;
  clears: number;
  /** Types text into the composer. */
  type(text: string): void;
  /** Presses a key, e.g. `{ return: true }` or `{ ctrl: true }` with input `c`. */
  press(key: Partial<KeyInfo>, input?: string): void;
  /** Waits until `check` holds for the current snapshot. */
  until(check: () => boolean, what?: string, timeoutMs?: number): Promise<void>;
  /** The finished items as short plain lines. */
  lines(): string[];
  close(): Promise<void>;
}

/** One line per finished item, for assertions. */
export function itemLine(item: Item): string {
  switch (item.kind) {
    case "banner":
      return `banner: ${item.title}`;
    case "user":
      return `> ${item.text}`;
    case "attachments":
      return `+ ${item.labels.join(", ")}`;
    case "assistant":
      return item.markdown.trim();
    case "reasoning":
      return `thought: ${item.text}`;
    case "tool":
      return `tool ${item.call.name}${item.result.isError ? " (error)" : ""}: ${
        item.result.content.split("\n")[0]
      }`;
    case "approval":
      return `approval ${item.choice}: ${item.summary}`;
    case "notice":
      return `${item.level}: ${item.text}`;
    case "turn_end":
      return `end: ${item.status}`;
    case "panel":
      return `panel ${item.title}: ${item.lines.join(" | ")}`;
  }
}

/** Starts a session against a fake LLM answering with `script`. */
export async function startUiSession(opts: {
  script: FakeScript;
  files?: Record<string, string>;
  commands?: CustomCommand[];
  /** Appended to the home config; a function gets the fake server's URL. */
  toml?: string | ((url: string) => string);
  mcp?: McpView;
  /** The controller's frame (see `ChatControllerOptions.frameMs`); none shows every change at once. */
  frameMs?: number;
}): Promise<UiSession> {
  const fake = await startFakeLlm({ script: opts.script });
  const repo = await makeRepo(opts.files ?? {});
  const toml = typeof opts.toml === "function" ? opts.toml(fake.url) : opts.toml;
  const home = await makeHome(fake.url, toml ?? "");
  const broker = new UiApprovalBroker();
  const env = { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-ui-test" };
  // The UI's MCP view, when a test brings one, is also where `@server:uri` is read.
  const view = opts.mcp;
  const host = await openHost({
    cwd: repo,
    env,
    ...(view
      ? {
        resources: {
          hasServer: (name: string) => view.servers().some((s) => s.name === name),
          readResource: (server: string, uri: string, o: { signal: AbortSignal }) =>
            view.readResource(server, uri, o),
        },
      }
      : {}),
  });
  const backend = await HostBackend.create({
    host,
    broker,
    mcp: opts.mcp,
  });
  const session: UiSession = {
    backend,
    host,
    broker,
    fake,
    repo,
    home,
    exits: 0,
    clears: 0,
    controller: undefined as unknown as ChatController,
    type: (text) => session.controller.handleInput(text, NO_KEY),
    press: (key, input = "") => session.controller.handleInput(input, { ...NO_KEY, ...key }),
    until: async (check, what = "condition", timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${what}; items:\n${session.lines().join("\n")}`);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    lines: () => session.controller.getSnapshot().items.map(itemLine),
    close: async () => {
      session.controller.dispose();
      await backend.dispose();
      await host.close();
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
  session.controller = new ChatController({
    backend,
    broker,
    commands: opts.commands,
    exit: () => session.exits++,
    clearScreen: () => session.clears++,
    frameMs: opts.frameMs,
  });
  return session;
}
