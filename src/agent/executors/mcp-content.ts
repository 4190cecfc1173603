import type { ImageBlock, TextBlock } from "../../history/message.js"
import type { McpContent, McpResourceContents } from "./types.js"

/** Text of one resource's contents; binary contents are described, images become image blocks. */
function resourceBlocks(resource: McpResourceContents): (TextBlock | ImageBlock)[] {
  if (resource.text !== undefined) return [{ type: "text", text: resource.text }]
  const type = resource.mimeType ?? "application/octet-stream"
  if (resource.blob !== undefined && type.startsWith("image/")) {
    return [{ type: "image", mediaType: type, data: resource.blob }]
  }
  const bytes = resource.blob ? Buffer.from(resource.blob, "base64").length : 0
  return [{ type: "text", text: `[binary resource ${resource.uri}: ${type}, ${bytes} bytes]` }]
}

/** Converts MCP content to tool-result blocks: text joined and capped, images kept, other media described. */
export function mcpBlocks(content: (McpContent | { type: string })[], maxChars: number): (TextBlock | ImageBlock)[] {
  const blocks: (TextBlock | ImageBlock)[] = []
  for (const part of content) {
    const item = part as McpContent
    switch (item.type) {
      case "text":
        blocks.push({ type: "text", text: item.text })
        break
      case "image":
        blocks.push({ type: "image", mediaType: item.mimeType, data: item.data })
        break
      case "audio":
        blocks.push({ type: "text", text: `[audio: ${item.mimeType}, not shown]` })
        break
      case "resource":
        blocks.push(...resourceBlocks(item.resource))
        break
      case "resource_link":
        blocks.push({ type: "text", text: `[resource link: ${item.uri}${item.name ? ` (${item.name})` : ""}]` })
        break
      default:
        blocks.push({ type: "text", text: `[unsupported content of type ${String(part.type)}]` })
    }
  }
  return capBlocks(blocks, maxChars)
}

/** Keeps text blocks within `maxChars` in total, cutting the one that crosses the limit with a notice. */
export function capBlocks(blocks: (TextBlock | ImageBlock)[], maxChars: number): (TextBlock | ImageBlock)[] {
  let left = maxChars
  const out: (TextBlock | ImageBlock)[] = []
  let omitted = 0
  for (const block of blocks) {
    if (block.type !== "text") {
      out.push(block)
      continue
    }
    if (left <= 0) {
      omitted += block.text.length
      continue
    }
    if (block.text.length > left) {
      out.push({ type: "text", text: block.text.slice(0, left) })
      omitted += block.text.length - left
      left = 0
    } else {
      out.push(block)
      left -= block.text.length
    }
  }
  if (omitted > 0) out.push({ type: "text", text: `[… ${omitted} more characters not shown (limit ${maxChars}).]` })
  return out
}

/** The content as one string when it is all text, else the blocks. */
export function simplify(blocks: (TextBlock | ImageBlock)[]): string | (TextBlock | ImageBlock)[] {
  if (blocks.every((b) => b.type === "text")) return blocks.map((b) => (b as TextBlock).text).join("\n")
  return blocks
}
