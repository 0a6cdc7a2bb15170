/**
 * MCP content blocks as text for the model and the UI. Binary data is never inlined: it is
 * named with its type and size.
 *
 * @module
 */
import type { CallToolResult, GetPromptResult, ReadResourceResult } from "./sdk.ts";
import type { McpPromptResult, McpResourcePart } from "./types.ts";

type Block = CallToolResult["content"][number];

function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor(clean.length * 3 / 4) - padding);
}

/** One content block as text. */
export function blockText(block: Block): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource_link":
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ""}]`;
    case "resource": {
      const r = block.resource;
      if ("text" in r && typeof r.text === "string") return `[resource ${r.uri}]\n${r.text}`;
      const blob = "blob" in r && typeof r.blob === "string" ? base64Bytes(r.blob) : 0;
      return `[resource ${r.uri}: ${r.mimeType ?? "binary"}, ${blob} bytes]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/** A tool result as the model sees it. */
export function toolResultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map(blockText);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return parts.join("\n");
}

/** A rendered prompt as plain messages. */
export function promptMessages(result: GetPromptResult): McpPromptResult {
  return {
    ...(result.description ? { description: result.description } : {}),
    messages: result.messages.map((m) => ({
      role: m.role,
      text: blockText(m.content as Block),
    })),
  };
}

/** The parts of a read resource. */
export function resourceParts(result: ReadResourceResult): McpResourcePart[] {
  return result.contents.map((c) => {
    const part: McpResourcePart = { uri: c.uri };
    if (c.mimeType) part.mimeType = c.mimeType;
    if ("text" in c && typeof c.text === "string") part.text = c.text;
    else if ("blob" in c && typeof c.blob === "string") part.binaryBytes = base64Bytes(c.blob);
    return part;
  });
}

/** Resource parts joined for the model. */
export function resourceText(parts: McpResourcePart[]): string {
  return parts.map((p) =>
    p.text !== undefined
      ? p.text
      : `[binary resource ${p.uri}: ${p.mimeType ?? "unknown type"}, ${p.binaryBytes ?? 0} bytes]`
  ).join("\n");
}
