/**
 * Wire helpers shared by the kinds that send images as URLs (Chat Completions, Responses).
 *
 * @module
 */
import type { ImagePart } from "./types.ts";

/** The URL form of an image: the URL itself, or a `data:<type>;base64,<data>` URL. */
export function imageUrl(image: ImagePart): string {
  return "url" in image ? image.url : `data:${image.mediaType};base64,${image.data}`;
}

/** The images of a user message, or undefined when it carries none. */
export function userImages(message: {
  role: string;
  images?: readonly ImagePart[];
}): readonly ImagePart[] | undefined {
  return message.role === "user" && message.images?.length ? message.images : undefined;
}
