/**
 * Starts the Ink app for an interactive session and returns when the user leaves it.
 *
 * @module
 */
import process from "node:process";
import { type Instance, render } from "ink";
import type { CustomCommand } from "../../core/commands/mod.ts";
import { ChatApp } from "./app.tsx";
import type { ChatBackend } from "./backend.ts";
import type { UiApprovalBroker } from "./broker.ts";
import { ChatController } from "./controller.ts";
import type { InputHistory } from "./history.ts";
import { makeStyles } from "./style.ts";

/** What the session is built from. */
export interface ChatAppOptions {
  backend: ChatBackend;
  broker: UiApprovalBroker;
  commands: readonly CustomCommand[];
  notices: readonly string[];
  history: InputHistory;
  version: string;
  color: boolean;
}

/** Longest wait for a cancelled turn to wind down before the runtime is closed. */
const WIND_DOWN_MS = 3000;

/** Runs the session until the user exits. The terminal is restored on return. */
export async function runChatApp(opts: ChatAppOptions): Promise<void> {
  const styles = makeStyles(opts.color);
  const ink: { instance?: Instance } = {};
  const controller = new ChatController({
    backend: opts.backend,
    broker: opts.broker,
    commands: opts.commands,
    notices: opts.notices,
    history: opts.history,
    version: opts.version,
    frameMs: 16,
    exit: () => ink.instance?.unmount(),
    clearScreen: () => {
      ink.instance?.clear();
      process.stdout.write("\x1b[2J\x1b[3J\x1b[H");
    },
  });
  const instance = render(<ChatApp controller={controller} styles={styles} />, {
    exitOnCtrlC: false,
    // `reasonix` checked for a terminal before getting here; CI variables must not switch
    // Ink to its print-at-exit mode.
    interactive: true,
    incrementalRendering: true,
    maxFps: 30,
  });
  ink.instance = instance;
  try {
    await instance.waitUntilExit();
  } finally {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      controller.idle(),
      new Promise((resolve) => timer = setTimeout(resolve, WIND_DOWN_MS)),
    ]);
    clearTimeout(timer);
    controller.dispose();
    await opts.history.flush();
  }
}
