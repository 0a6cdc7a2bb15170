/**
 * The Ink components of the interactive session: layout, transcript items and tool cards,
 * the composer, the live tail, overlays and the status line.
 *
 * @module
 */
export { Composer, COMPOSER_MAX_LINES, type ComposerProps, PROMPT_MARK } from "./composer.tsx";
export { type ItemProps, ItemView, ToolCard, toolHeader } from "./items.tsx";
export { Layout, type LayoutProps } from "./layout.tsx";
export { lastLines, LiveTail, type LiveTailProps } from "./live.tsx";
export { LIST_ROWS, listWindow, OverlayView } from "./overlay_view.tsx";
export { ActivityLine, StatusLine } from "./status_line.tsx";
