/**
 * How resolved references reach the model: appended to the user's own words as tagged blocks,
 * so the text the user typed stays intact and each block says where it came from.
 *
 * @module
 */
import type { ImagePart } from "../../providers/types.ts";
import type { Attachment } from "./types.ts";

function attr(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function block(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

/** One attachment as a tagged block. */
export function formatAttachment(a: Attachment): string {
  switch (a.kind) {
    case "file": {
      const shown = formatSize(new TextEncoder().encode(a.text).length);
      const note = a.truncated
        ? `[truncated: showing the first ${shown} of ${
          formatSize(a.size)
        }; use read_file for the rest]\n`
        : "";
      return `<referenced-file path="${attr(a.path)}">\n${block(a.text)}${note}</referenced-file>`;
    }
    case "binary":
      return `<referenced-file path="${attr(a.path)}" binary="true">\n` +
        `[binary file, ${formatSize(a.size)}, not shown]\n</referenced-file>`;
    case "image":
      return `<referenced-image path="${attr(a.path)}">\n` +
        `[attached to this message as an image, ${formatSize(a.size)}]\n</referenced-image>`;
    case "directory": {
      const note = a.truncated ? `[listing stopped after ${a.entries} entries]\n` : "";
      return `<referenced-directory path="${attr(a.path)}">\n${block(a.listing)}${note}` +
        `</referenced-directory>`;
    }
    case "resource": {
      const note = a.truncated ? "[truncated]\n" : "";
      return `<referenced-resource server="${attr(a.server)}" uri="${attr(a.uri)}">\n` +
        `${block(a.text)}${note}</referenced-resource>`;
    }
  }
}

/** The user's text followed by one block per attachment. */
export function withAttachments(text: string, attachments: readonly Attachment[]): string {
  if (attachments.length === 0) return text;
  return `${text}\n\n${attachments.map(formatAttachment).join("\n\n")}`;
}

/** A short label for the UI, e.g. `src/a.ts (1.2 KiB)` or `docs: file:///x`. */
export function attachmentLabel(a: Attachment): string {
  switch (a.kind) {
    case "file":
      return `${a.path} (${formatSize(a.size)}${a.truncated ? ", truncated" : ""})`;
    case "binary":
      return `${a.path} (binary, ${formatSize(a.size)}, not included)`;
    case "image":
      return `${a.path} (image, ${formatSize(a.size)})`;
    case "directory":
      return `${a.path} (${a.entries} entries${a.truncated ? ", truncated" : ""})`;
    case "resource":
      return `${a.server}:${a.uri}${a.truncated ? " (truncated)" : ""}`;
  }
}

/** The images among `attachments`, in order, to send with the message. */
export function attachedImages(attachments: readonly Attachment[]): ImagePart[] {
  return attachments.flatMap((a) => a.kind === "image" ? [a.image] : []);
}
