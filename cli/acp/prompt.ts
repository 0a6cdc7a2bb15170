/**
 * An ACP prompt (`session/prompt`'s content blocks) as a Reasonix user turn: text is what the
 * user typed, a resource link becomes an `@` reference the turn builder reads like one typed
 * in the terminal, an embedded resource (an editor buffer, a selection) rides as a trusted
 * block after the text, and images go with the turn.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { isAbsolute, relative } from "node:path";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { UserInput } from "../../core/agent/events.ts";
import type { ImagePart } from "../../providers/types.ts";

/** A `file:` URI as a path; other URIs as they are. */
function uriPath(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/** `path` as the user would type it after `@`: relative inside `root`. */
function referenceTo(path: string, root: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(root, path);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

function escapeAttr(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}

/** The user turn for `blocks`; `root` is the workspace root. */
export function promptInput(blocks: readonly ContentBlock[], root: string): UserInput {
  const text: string[] = [];
  const attached: string[] = [];
  const images: ImagePart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        text.push(block.text);
        break;
      case "resource_link": {
        const path = uriPath(block.uri);
        // A path with spaces cannot be an `@` reference; it is named instead.
        if (block.uri.startsWith("file:") && !/\s/.test(path)) {
          text.push(`@${referenceTo(path, root)}`);
        } else text.push(`${block.name} (${block.uri})`);
        break;
      }
      case "resource": {
        const r = block.resource;
        const uri = escapeAttr(uriPath(r.uri));
        if ("text" in r) attached.push(`<resource uri="${uri}">\n${r.text}\n</resource>`);
        else if (r.mimeType?.startsWith("image/")) {
          images.push({ mediaType: r.mimeType, data: r.blob });
        } else attached.push(`<resource uri="${uri}">(binary content not shown)</resource>`);
        break;
      }
      case "image":
        if (block.data) images.push({ mediaType: block.mimeType, data: block.data });
        else if (block.uri) images.push({ url: block.uri });
        break;
      default:
        // Audio is not offered in the prompt capabilities.
        break;
    }
  }
  return {
    text: text.join(" ").trim(),
    ...(images.length ? { images } : {}),
    ...(attached.length ? { blocks: attached } : {}),
  };
}
