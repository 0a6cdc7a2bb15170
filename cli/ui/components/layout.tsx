/**
 * The redrawn part of the screen, top to bottom: live tail, then either a modal overlay or the
 * activity line, composer and its completion list, then the status line. Modal overlays hide
 * the composer (spec §3.8); the rule lives in `hideComposer`.
 *
 * @module
 */
import { Box } from "ink";
import type { ReactNode } from "react";
import type { ChatSnapshot } from "../controller.ts";
import { hideComposer } from "../overlays.ts";
import type { Styles } from "../style.ts";
import { Composer } from "./composer.tsx";
import { LiveTail } from "./live.tsx";
import { OverlayView } from "./overlay_view.tsx";
import { ActivityLine, StatusLine } from "./status_line.tsx";

/** Props of {@link Layout}. */
export interface LayoutProps {
  snapshot: ChatSnapshot;
  width: number;
  rows: number;
  styles: Styles;
}

/** Rows kept for the composer, activity and status lines. */
const CHROME_ROWS = 7;

/** Everything below the scrollback. */
export function Layout(props: LayoutProps): ReactNode {
  const { snapshot: snap, width, rows, styles } = props;
  const overlay = snap.overlay;
  const modal = hideComposer(overlay);
  // The overlay gets what the chrome leaves; the live tail gets the rest, at least 3 rows.
  const overlayRows = overlay ? Math.max(6, Math.floor(rows * 0.6)) : 0;
  const liveRows = Math.max(3, rows - CHROME_ROWS - overlayRows);
  return (
    <Box flexDirection="column" width={width}>
      <LiveTail
        live={snap.live}
        queued={snap.queued}
        width={width}
        maxLines={liveRows}
        now={snap.now}
        styles={styles}
      />
      <Box marginTop={1} flexDirection="column">
        {modal && overlay
          ? <OverlayView overlay={overlay} width={width} maxLines={overlayRows} styles={styles} />
          : (
            <>
              <ActivityLine
                busy={snap.busy}
                hint={snap.hint}
                tick={snap.tick}
                now={snap.now}
                width={width}
                styles={styles}
              />
              <Composer
                editor={snap.editor}
                width={width}
                placeholder={snap.busy ? undefined : "Ask anything · / commands · @ files"}
                styles={styles}
              />
              {overlay && (
                <OverlayView
                  overlay={overlay}
                  width={width}
                  maxLines={overlayRows}
                  styles={styles}
                />
              )}
            </>
          )}
      </Box>
      <StatusLine info={snap.status} width={width} styles={styles} />
    </Box>
  );
}
