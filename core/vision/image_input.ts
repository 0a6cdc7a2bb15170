/**
 * Turns what the user attached (`--image <file-or-url>`) into image parts: files are read,
 * capped in size and typed by their magic bytes; http(s) URLs are passed on for the provider
 * to fetch.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { resolve } from "node:path";
import { ReasonixError } from "../../errors.ts";
import type { ImagePart } from "../../providers/types.ts";

/** The largest image file accepted: 10 MiB. Providers reject far smaller ones anyway. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** Media types recognized from file contents. */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** An attachment that cannot be used: missing, too large, or not a supported image. */
export class ImageInputError extends ReasonixError {
  constructor(message: string, options?: ErrorOptions) {
    super("image_input", message, options);
    this.name = "ImageInputError";
  }
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return prefix.every((b, i) => bytes[at + i] === b);
}

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** The media type of PNG, JPEG, GIF or WebP bytes, from their signature; else undefined. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) {
    return "image/gif";
  }
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) {
    return "image/webp";
  }
  return undefined;
}

/** Whether `spec` is an http(s) URL rather than a file path. */
function isUrl(spec: string): boolean {
  return /^https?:\/\//i.test(spec);
}

/**
 * Loads one attachment: an `http://` or `https://` URL as is, anything else as a file path
 * relative to `cwd`. Throws {@link ImageInputError} for a missing or unreadable file, one over
 * {@link MAX_IMAGE_BYTES}, or contents that are not PNG, JPEG, GIF or WebP.
 */
export async function loadImage(
  spec: string,
  opts: { cwd: string; label?: string },
): Promise<ImagePart> {
  const label = opts.label ?? `--image ${spec}`;
  if (isUrl(spec)) {
    try {
      return { url: new URL(spec).href };
    } catch (error) {
      throw new ImageInputError(`${label}: not a valid URL`, { cause: error });
    }
  }
  const path = resolve(opts.cwd, spec);
  let bytes: Uint8Array;
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) throw new ImageInputError(`${label}: not a regular file`);
    if (info.size > MAX_IMAGE_BYTES) throw tooLarge(label, info.size);
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof ImageInputError) throw error;
    const reason = error instanceof Deno.errors.NotFound
      ? "no such file"
      : (error as Error).message;
    throw new ImageInputError(`${label}: ${reason}`, { cause: error });
  }
  // The file may have grown since the stat.
  if (bytes.byteLength > MAX_IMAGE_BYTES) throw tooLarge(label, bytes.byteLength);
  const mediaType = sniffImageType(bytes);
  if (mediaType === undefined) {
    throw new ImageInputError(
      `${label}: not a PNG, JPEG, GIF or WebP image (checked by its contents)`,
    );
  }
  return { mediaType, data: Buffer.from(bytes).toString("base64") };
}

/** Loads every attachment in order; the first failure throws. */
export async function loadImages(
  specs: readonly string[],
  opts: { cwd: string },
): Promise<ImagePart[]> {
  const out: ImagePart[] = [];
  for (const spec of specs) out.push(await loadImage(spec, opts));
  return out;
}

function tooLarge(label: string, size: number): ImageInputError {
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  // Just over the limit, MiB would round to the limit itself.
  const shown = mib(size) === mib(MAX_IMAGE_BYTES) ? `${size} bytes` : mib(size);
  return new ImageInputError(
    `${label}: ${shown} is over the ${mib(MAX_IMAGE_BYTES)} limit; ` +
      "shrink or crop the image first",
  );
}
