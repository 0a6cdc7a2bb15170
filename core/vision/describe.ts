/**
 * The vision request: one image in, a faithful description and transcription out, wrapped in
 * a versioned block that rides the user turn in place of the image.
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";
import type { ImagePart, Provider, Usage } from "../../providers/types.ts";

/**
 * Version of the `<image-description>` block format. Bump it when the block or the prompt
 * that produces it changes meaning, so stored turns can be told apart.
 */
export const IMAGE_DESCRIPTION_VERSION = 1;

/** Output cap of one description request; a description needs far less than a reply. */
export const DESCRIPTION_MAX_TOKENS = 8192;

/** The vision model's instructions. Fixed text, so repeated requests share a cache prefix. */
export const VISION_SYSTEM_PROMPT: string = [
  "You describe images for a coding assistant that cannot see them.",
  "Describe the image faithfully: what kind of image it is (screenshot, diagram, photo, chart, " +
  "handwriting, ...), its layout, and every element that matters.",
  "Transcribe all visible text verbatim, preserving line breaks, indentation, code, error " +
  "messages, numbers, paths and identifiers exactly.",
  "Say when something is unreadable, cut off or uncertain. Never guess or invent details.",
  "Do not answer or act on the user's message; it is given only so you know what matters.",
].join("\n");

/** The vision model returned nothing usable. */
export class VisionError extends ReasonixError {
  constructor(message: string, options?: ErrorOptions) {
    super("vision_failed", message, options);
    this.name = "VisionError";
  }
}

/** A finished description. */
export interface Description {
  text: string;
  usage?: Usage;
}

/** Options of {@link describeImage}. */
export interface DescribeOptions {
  provider: Provider;
  /** Model id sent on the wire. */
  model: string;
  /** The user's own words, so the description covers what they ask about. */
  userText: string;
  /** 1-based position of the image in the turn, and how many there are. */
  index: number;
  count: number;
  maxOutputTokens?: number;
  signal: AbortSignal;
}

/**
 * Asks the vision model to describe one image. Provider errors propagate; an empty answer
 * throws {@link VisionError}. Reasoning is not part of the description.
 */
export async function describeImage(
  image: ImagePart,
  opts: DescribeOptions,
): Promise<Description> {
  const ask = [
    `The user attached this image (${opts.index} of ${opts.count}) to the message below. ` +
    "Describe it and transcribe its text so the assistant can work without seeing it.",
    "",
    "<user-message>",
    opts.userText,
    "</user-message>",
  ].join("\n");
  let text = "";
  let usage: Usage | undefined;
  const stream = opts.provider.stream({
    model: opts.model,
    system: VISION_SYSTEM_PROMPT,
    messages: [{ role: "user", content: ask, images: [image] }],
    tools: [],
    ...(opts.maxOutputTokens !== undefined ? { maxOutputTokens: opts.maxOutputTokens } : {}),
  }, { signal: opts.signal });
  for await (const chunk of stream) {
    if (chunk.type === "text") text += chunk.text;
    else if (chunk.type === "usage") usage = chunk.usage;
  }
  text = text.trim();
  if (text === "") throw new VisionError("the vision model returned an empty description");
  return usage ? { text, usage } : { text };
}

function attribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** Keeps a described closing tag from ending the block early for a reader of the format. */
function body(text: string, tag: string): string {
  return text.replaceAll(`</${tag}`, `&lt;/${tag}`);
}

/** The hidden block a description becomes in the user turn. */
export function imageDescriptionBlock(d: { model: string; index: number; text: string }): string {
  return `<image-description version="${IMAGE_DESCRIPTION_VERSION}" model="${
    attribute(d.model)
  }" index="${d.index}">\n${body(d.text, "image-description")}\n</image-description>`;
}

/**
 * The hidden block for an image the model cannot see and that has no description, so it
 * knows one was attached instead of guessing at it.
 */
export function imageUnavailableBlock(d: { index: number; reason: string }): string {
  return `<image-unavailable version="${IMAGE_DESCRIPTION_VERSION}" index="${d.index}">\n${
    body(d.reason, "image-unavailable")
  }\n</image-unavailable>`;
}
