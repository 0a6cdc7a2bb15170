/**
 * Applies a {@link VisionPlan} to one user turn: attach the images, or replace them with
 * descriptions from the vision model, or say they cannot be seen. The result is what the
 * session stores, so a resumed conversation replays it byte for byte and no image is ever
 * described twice.
 *
 * @module
 */
import type { ImagePart, Provider } from "../../providers/types.ts";
import type { SideRequest } from "../agent/agent.ts";
import type { ResolvedModel } from "../config/types.ts";
import {
  describeImage,
  DESCRIPTION_MAX_TOKENS,
  imageDescriptionBlock,
  imageUnavailableBlock,
} from "./describe.ts";
import { modelLabel, type VisionPlan } from "./plan.ts";

/** Something the user should be told about the turn. */
export interface VisionNotice {
  level: "info" | "warning";
  message: string;
}

/** The user message to append. */
export interface ImageTurn {
  content: string;
  /** Present only when the executor reads the images itself. */
  images?: ImagePart[];
  notices: VisionNotice[];
  /** The description requests that reported usage, for the run's totals and budgets. */
  sideRequests?: SideRequest[];
}

/** What {@link ImageTurns} is built from. */
export interface ImageTurnsOptions {
  plan: VisionPlan;
  /**
   * Builds the vision model's provider (endpoint, key, headers) the way the executor's is
   * built. Called at most once, on the first image to describe.
   */
  createProvider(vision: ResolvedModel): Provider;
}

/** Image handling of one runtime. */
export class ImageTurns {
  readonly plan: VisionPlan;
  readonly #opts: ImageTurnsOptions;
  #provider?: Provider;

  constructor(opts: ImageTurnsOptions) {
    this.plan = opts.plan;
    this.#opts = opts;
  }

  /** Throws the configuration error for images this runtime cannot use at all. */
  check(images: readonly ImagePart[]): void {
    if (images.length > 0 && this.plan.mode === "none") throw this.plan.error;
  }

  /**
   * The user message for `content` (the decorated turn text) with `images` attached. `text`
   * is the user's own words, given to the vision model as context. Never throws: a failed
   * description becomes a warning and an `<image-unavailable>` block, never a made-up one.
   */
  async prepare(
    turn: { content: string; text: string; images: readonly ImagePart[] },
    opts: { signal: AbortSignal },
  ): Promise<ImageTurn> {
    const { images } = turn;
    if (images.length === 0) return { content: turn.content, notices: [] };
    const plan = this.plan;
    if (plan.mode === "direct") {
      return { content: turn.content, images: [...images], notices: [] };
    }
    if (plan.mode === "none") {
      const reason = plan.error.problem;
      return {
        content: joinBlocks(
          turn.content,
          images.map((_, i) =>
            imageUnavailableBlock({ index: i + 1, reason: `${reason}; it was not sent.` })
          ),
        ),
        notices: [{
          level: "warning",
          message: `${images.length} image(s) dropped: ${reason}. Fix: ${plan.error.fix}.`,
        }],
      };
    }
    const vision = plan.vision;
    const label = modelLabel(vision);
    const notices: VisionNotice[] = [];
    const blocks: string[] = [];
    const sideRequests: SideRequest[] = [];
    for (const [i, image] of images.entries()) {
      const index = i + 1;
      try {
        const description = await describeImage(image, {
          provider: this.#provider ??= this.#opts.createProvider(vision),
          model: vision.model,
          userText: turn.text,
          index,
          count: images.length,
          maxOutputTokens: vision.maxOutputTokens > 0
            ? Math.min(vision.maxOutputTokens, DESCRIPTION_MAX_TOKENS)
            : DESCRIPTION_MAX_TOKENS,
          signal: opts.signal,
        });
        blocks.push(imageDescriptionBlock({ model: label, index, text: description.text }));
        const u = description.usage;
        if (u) {
          sideRequests.push({
            purpose: "vision",
            usage: u,
            ...(vision.price ? { price: vision.price } : {}),
          });
        }
        notices.push({
          level: "info",
          message: `image ${index} described by ${label}` +
            (u ? ` (${u.promptTokens} prompt + ${u.completionTokens} completion tokens)` : ""),
        });
      } catch (error) {
        const why = opts.signal.aborted
          ? "cancelled"
          : (error as Error)?.message?.split("\n")[0] ?? String(error);
        blocks.push(imageUnavailableBlock({
          index,
          reason: `The image could not be described by ${label} (${why}); ` +
            "its content is unknown.",
        }));
        notices.push({
          level: "warning",
          message: `image ${index} could not be described by ${label}: ${why}. ` +
            "The turn continues without its description.",
        });
      }
    }
    return {
      content: joinBlocks(turn.content, blocks),
      notices,
      ...(sideRequests.length ? { sideRequests } : {}),
    };
  }
}

function joinBlocks(content: string, blocks: readonly string[]): string {
  return [content, ...blocks].join("\n\n");
}
