/**
 * The conversation a request belongs to: the key traces, spans, fitting and prompt-cache routing go by. The
 * client's `x-promptline-conversation` header when set; else derived from the request as decoded.
 */
import { createHash } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"
import { formatModule, type SpokenFormat } from "../providers/formats.js"
import type { DecodedRequest, RequestRoute } from "../providers/types.js"

/** The header a client (or a load balancer) sets to name its conversation. */
export const CONVERSATION_HEADER = "x-promptline-conversation"

const short = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16)

/**
 * Characters of the system prompt a conversation is known by: its start, which agents keep fixed for a session
 * while the end changes (a date, a git status, the working folder, a reminder).
 */
const SYSTEM_START = 1000

/** The conversation the client named in its header (trimmed, at most 200 characters), if any. */
export function namedConversation(headers: IncomingHttpHeaders): string | undefined {
  const given = headers[CONVERSATION_HEADER]
  const named = Array.isArray(given) ? given[0] : given
  return named !== undefined && named.trim() !== "" ? named.trim().slice(0, 200) : undefined
}

/**
 * The conversation a request belongs to: the client's header when set, else a hash of what stays fixed for a
 * conversation while a side call (its own system prompt or tools) differs: the system prompt's first 1,000
 * characters, the tool names in sorted order, and the first user message. Undefined when neither is known.
 */
export function conversationKey(headers: IncomingHttpHeaders, decoded: DecodedRequest | undefined): string | undefined {
  const named = namedConversation(headers)
  if (named !== undefined) return named
  if (!decoded) return undefined
  const firstUser = decoded.messages.find((m) => m.role === "user")
  const tools = decoded.prompt.tools.map((t) => t.name).sort()
  return short(JSON.stringify([decoded.prompt.text.slice(0, SYSTEM_START), tools, firstUser?.content ?? null]))
}

/**
 * The key of a request that was not decoded on its way (same-format: its bytes went upstream unread), worked out
 * from its body once its answer ended. A body its format's decoder cannot read has no derived key ("").
 */
export function laterConversationKey(
  headers: IncomingHttpHeaders,
  format: SpokenFormat,
  body: unknown,
  route: RequestRoute,
): string {
  const named = namedConversation(headers)
  if (named !== undefined) return named
  if (typeof body !== "object" || body === null || Array.isArray(body)) return ""
  try {
    return conversationKey(headers, formatModule(format).decodeRequest(body as Record<string, unknown>, route)) ?? ""
  } catch {
    return ""
  }
}
