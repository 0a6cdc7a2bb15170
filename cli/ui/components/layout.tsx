/**
 * The redrawn part of the screen, top to bottom: live tail, then either a modal overlay or the
 * activity line, composer and its completion list, then the status line. Modal overlays hide
 * the composer (spec §3.8); the rule lives in `hideComposer`. Every section is drawn within
 * its share of the row budget (`budget.ts`), so the frame stays shorter than the terminal.
 *
 * @module
 */
import { Box } from "ink";
import type { ReactNode } from "react";
import type { ChatSnapshot } from "../controller.ts";
import { hideComposer, type Overlay } from "../overlays.ts";
import type { Styles } from "../style.ts";
import { type LayoutBudget, layoutBudget, listRows } from "./budget.ts";
import { Composer, composerTextRows } from "./composer.tsx";
import { LiveTail } from "./live.tsx";
import { cardIds } from "../subagent_cards.ts";
import { OverlayView } from "./overlay_view.tsx";
import { ActivityLine, StatusLine } from "./status_line.tsx";

/** Props of {@link Layout}. */
export interface LayoutProps {
  snapshot: ChatSnapshot;
  width: number;
  rows: number;
  styles: Styles;
}

/** Rows an overlay would take uncut; a modal takes what its share gives it. */
function overlayRows(overlay: Overlay): number {
  if (overlay.kind === "slash" || overlay.kind === "mention") return listRows(overlay.items.length);
  return Number.POSITIVE_INFINITY;
}

/** The row budget of `snapshot` in a terminal of `rows` rows and `width` columns. */
export function snapshotBudget(
  snap: ChatSnapshot,
  opts: { width: number; rows: number; styles: Styles },
): LayoutBudget {
  const overlay = snap.overlay;
  return layoutBudget({
    rows: opts.rows,
    ...(overlay ? { overlay: { modal: hideComposer(overlay), rows: overlayRows(overlay) } } : {}),
    composerLines: composerTextRows(snap.editor, opts.width, opts.styles),
    activity: snap.busy !== undefined || snap.hint !== undefined,
  });
}

/**
 * At most `rows` rows of `children`; a section that drew more than its share loses its top,
 * never the rows below it (an approval keeps its choices).
 */
function Rows(props: { rows: number; children: ReactNode }): ReactNode {
  return (
    <Box flexDirection="column" maxHeight={props.rows} overflow="hidden" justifyContent="flex-end">
      <Box flexDirection="column" flexShrink={0}>{props.children}</Box>
    </Box>
  );
}

/** Everything below the scrollback. */
export function Layout(props: LayoutProps): ReactNode {
  const { snapshot: snap, width, rows, styles } = props;
  const overlay = snap.overlay;
  const modal = hideComposer(overlay);
  const budget = snapshotBudget(snap, { width, rows, styles });
  const overlayRows = budget.overlay;
  return (
    <Box flexDirection="column" width={width}>
      {budget.live > 0 && (
        <Rows rows={budget.live}>
          <LiveTail
            live={snap.live}
            queued={snap.queued}
            width={width}
            maxLines={budget.live}
            now={snap.now}
            styles={styles}
          />
        </Rows>
      )}
      <Box marginTop={1} flexDirection="column">
        {modal && overlay
          ? (
            <Rows rows={overlayRows}>
              <OverlayView overlay={overlay} width={width} maxLines={overlayRows} styles={styles} />
            </Rows>
          )
          : (
            <>
              <ActivityLine
                busy={snap.busy}
                hint={snap.hint}
                tick={snap.tick}
                now={snap.now}
                cards={snap.live.tools.some((t) => cardIds(t).length > 0)}
                width={width}
                styles={styles}
              />
              <Composer
                editor={snap.editor}
                width={width}
                placeholder={snap.busy ? undefined : "Ask anything · / commands · @ files"}
                styles={styles}
                maxRows={budget.composer}
              />
              {overlay && overlayRows > 0 && (
                <Rows rows={overlayRows}>
                  <OverlayView
                    overlay={overlay}
                    width={width}
                    maxLines={overlayRows}
                    styles={styles}
                  />
                </Rows>
              )}
            </>
          )}
      </Box>
      <StatusLine info={snap.status} width={width} styles={styles} />
    </Box>
  );
}
