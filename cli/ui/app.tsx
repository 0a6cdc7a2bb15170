/**
 * The Ink root: finished items go through `<Static>` (printed once, then part of the terminal's
 * scrollback); only the layout below them is redrawn.
 *
 * @module
 */
import { Static, useInput, usePaste, useWindowSize } from "ink";
import { type ReactNode, useSyncExternalStore } from "react";
import { ItemView } from "./components/items.tsx";
import { Layout } from "./components/layout.tsx";
import type { ChatController } from "./controller.ts";
import type { Styles } from "./style.ts";
import type { Item } from "./transcript.ts";

/** Props of {@link ChatApp}. */
export interface ChatAppProps {
  controller: ChatController;
  styles: Styles;
}

/** The interactive session's view. */
export function ChatApp(props: ChatAppProps): ReactNode {
  const { controller, styles } = props;
  const snap = useSyncExternalStore(controller.subscribe, controller.getSnapshot);
  const { columns, rows } = useWindowSize();
  useInput((input, key) => controller.handleInput(input, key));
  usePaste((text) => controller.handlePaste(text));
  const width = Math.max(20, columns);
  return (
    <>
      <Static key={snap.epoch} items={snap.items as Item[]}>
        {(item) => <ItemView key={item.id} item={item} width={width} styles={styles} />}
      </Static>
      {!snap.exiting && (
        <Layout snapshot={snap} width={width} rows={Math.max(10, rows)} styles={styles} />
      )}
    </>
  );
}
