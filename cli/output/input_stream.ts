/**
 * `reasonix run --input-format stream-json`: user turns as JSON lines on stdin, in the shape
 * Claude Code's headless mode reads (`{"type":"user","message":{"role":"user","content":…}}`),
 * so another program can hold a multi-turn session with one process.
 *
 * @module
 */
import type { UserInput } from "../../core/agent/events.ts";
import type { ImagePart } from "../../providers/types.ts";
import type { InputLineError } from "./stream_json.ts";

/** One stdin line: a user turn, or why it is not one. */
export type TurnLine =
  | { ok: true; line: number; input: UserInput }
  | { ok: false; error: InputLineError };

/** Image types a user turn may carry inline, as the vision pipeline accepts them. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function imagePart(block: Record<string, unknown>): ImagePart | string {
  const source = block.source;
  if (!isRecord(source)) return 'an "image" block needs a "source" object';
  if (source.type === "base64") {
    if (typeof source.media_type !== "string" || !IMAGE_TYPES.has(source.media_type)) {
      return `image media_type must be one of ${[...IMAGE_TYPES].join(", ")}`;
    }
    if (typeof source.data !== "string" || !source.data) {
      return 'a base64 image source needs its "data"';
    }
    return { mediaType: source.media_type, data: source.data };
  }
  if (source.type === "url" && typeof source.url === "string" && source.url) {
    return { url: source.url };
  }
  return 'an image source must be {"type":"base64",…} or {"type":"url","url":…}';
}

/**
 * Parses one line into a user turn, or returns what is wrong with it. `content` is a string or
 * an array of `text` and `image` blocks; text blocks join with a line break.
 */
export function parseTurnLine(text: string): UserInput | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
  if (!isRecord(value)) return "expected a JSON object";
  if (value.type !== "user") {
    return `expected {"type":"user",…}, got type ${JSON.stringify(value.type ?? null)}`;
  }
  const message = value.message;
  if (!isRecord(message)) return 'a user line needs a "message" object';
  if (message.role !== undefined && message.role !== "user") {
    return `message.role must be "user", got ${JSON.stringify(message.role)}`;
  }
  const content = message.content;
  if (typeof content === "string") {
    return content.trim() ? { text: content } : "the user turn is empty";
  }
  if (!Array.isArray(content)) return "message.content must be a string or an array of blocks";
  const texts: string[] = [];
  const images: ImagePart[] = [];
  for (const [i, block] of content.entries()) {
    if (!isRecord(block)) return `message.content[${i}] must be an object`;
    if (block.type === "text") {
      if (typeof block.text !== "string") return `message.content[${i}].text must be a string`;
      texts.push(block.text);
    } else if (block.type === "image") {
      const image = imagePart(block);
      if (typeof image === "string") return `message.content[${i}]: ${image}`;
      images.push(image);
    } else {
      return `message.content[${i}] has type ${
        JSON.stringify(block.type ?? null)
      }; a user turn takes "text" and "image" blocks`;
    }
  }
  const joined = texts.join("\n");
  if (!joined.trim() && images.length === 0) return "the user turn is empty";
  return images.length ? { text: joined, images } : { text: joined };
}

/** Splits a byte stream into lines, numbered from 1; a last line without a newline counts. */
async function* lines(
  readable: ReadableStream<Uint8Array>,
): AsyncGenerator<{ line: number; text: string }> {
  const decoder = new TextDecoder();
  let buffer = "";
  let line = 0;
  for await (const chunk of readable) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      yield { line: ++line, text: buffer.slice(0, newline).replace(/\r$/, "") };
      buffer = buffer.slice(newline + 1);
    }
  }
  buffer += decoder.decode();
  if (buffer) yield { line: ++line, text: buffer.replace(/\r$/, "") };
}

/**
 * Reads user turns from `readable`, one per non-blank line, until end of input. Reading is
 * pulled: the next line is parsed only when the caller asks for the next turn.
 */
export async function* readTurnLines(readable: ReadableStream<Uint8Array>): AsyncGenerator<
  TurnLine
> {
  for await (const { line, text } of lines(readable)) {
    if (!text.trim()) continue;
    const parsed = parseTurnLine(text);
    yield typeof parsed === "string"
      ? { ok: false, error: { line, message: parsed } }
      : { ok: true, line, input: parsed };
  }
}
