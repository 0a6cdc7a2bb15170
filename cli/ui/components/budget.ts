/**
 * The row budget of the redrawn part of the screen. Ink redraws that part in place only while
 * it is shorter than the terminal; a frame as tall as the terminal or taller makes every redraw
 * scroll a copy of its top into the scrollback (the ghost status lines of a small terminal with
 * a menu open during a stream). So the sections share `rows - 1` rows, and each one is drawn
 * within its share.
 *
 * @module
 */

import { COMPOSER_MAX_LINES } from "./composer.tsx";
import { LIST_ROWS } from "./overlay_view.tsx";

/** Fewest terminal rows the layout is laid out for (smaller terminals get this budget). */
export const MIN_LAYOUT_ROWS = 10;
/** Fewest rows of a live tail worth showing: its blank line and two lines. */
const LIVE_MIN = 3;
/** Rows kept for the live tail next to a completion menu, when the terminal has them. */
const LIVE_RESERVE = 3;
/** Fewest rows a completion menu gets: the selection and a marker either side. */
const MENU_MIN = 3;
/** Fewest rows a modal overlay gets: an approval's border, title, summary and choices. */
const MODAL_MIN = 7;
/** Rows a modal may take from the live tail in a short terminal. */
const MODAL_FULL = 16;

/** What the layout has to show. */
export interface LayoutNeeds {
  /** Terminal rows. */
  rows: number;
  /** The overlay on screen: whether it hides the composer, and the rows it would take uncut. */
  overlay?: { modal: boolean; rows: number };
  /** Text lines in the composer. */
  composerLines: number;
  /** Whether the activity line (spinner or hint) is shown. */
  activity: boolean;
}

/** Rows per section; every section is drawn within its share. */
export interface LayoutBudget {
  /** The live tail, its blank line above included; 0 (not shown) or at least 3. */
  live: number;
  /** The overlay (0 without one). */
  overlay: number;
  /** The composer box, borders and scroll markers included (0 while a modal hides it). */
  composer: number;
  /** The blank line above the composer or modal, the activity line and the status line. */
  fixed: number;
  /** The whole frame at most: always below the terminal height. */
  total: number;
}

/** Rows a completion list of `count` entries takes uncut. */
export function listRows(count: number): number {
  return count <= LIST_ROWS ? count : LIST_ROWS + 2;
}

/** Rows the composer box takes for `lines` text lines, uncut. */
export function composerRows(lines: number): number {
  return 2 + (lines <= COMPOSER_MAX_LINES ? Math.max(1, lines) : COMPOSER_MAX_LINES + 2);
}

/** Shares `rows - 1` rows between the sections (at least {@linkcode MIN_LAYOUT_ROWS} rows). */
export function layoutBudget(needs: LayoutNeeds): LayoutBudget {
  const avail = Math.max(MIN_LAYOUT_ROWS, needs.rows) - 1;
  const overlay = needs.overlay;
  // The status line and the blank line above the composer (or the modal) are always there.
  let fixed = 2;
  let composer = 0;
  let shown = 0;
  if (overlay?.modal) {
    const room = avail - fixed;
    // A short terminal gives a modal all of its room: an approval must show what it asks.
    const share = Math.max(MODAL_MIN, Math.floor(needs.rows * 0.6), Math.min(room, MODAL_FULL));
    shown = Math.min(room, overlay.rows, share);
  } else {
    if (needs.activity) fixed++;
    const menuMin = overlay ? Math.min(overlay.rows, MENU_MIN) : 0;
    const cap = Math.max(3, avail - fixed - menuMin - LIVE_RESERVE);
    composer = Math.min(composerRows(needs.composerLines), cap);
    const free = avail - fixed - composer;
    if (overlay) {
      shown = Math.min(overlay.rows, Math.max(menuMin, free - LIVE_RESERVE), free);
    }
  }
  let live = avail - fixed - composer - shown;
  if (live < LIVE_MIN) {
    // Too little for the tail: a menu that wants more takes the rows instead.
    if (overlay && !overlay.modal) shown = Math.min(overlay.rows, shown + live);
    live = 0;
  }
  return { live, overlay: shown, composer, fixed, total: fixed + composer + shown + live };
}
