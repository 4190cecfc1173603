/** The OpenAI Chat body (DeepSeek's too) taken apart into its caching units (the cache explainer reads it). */
import {
  isObject,
  type Json,
  list,
  SYSTEM_ROLES,
  textOfContent,
  unitsOf,
  type WireParts,
  withSession,
} from "../wire-parts.js"

/** OpenAI Chat (and DeepSeek): leading system or developer messages are the system prompt. */
export function chatWireParts(body: Json): WireParts {
  const tools = list(body.tools).map((t, i) => {
    const fn = isObject(t) && isObject(t.function) ? t.function : isObject(t) ? t : {}
    return { path: `tools[${i}]`, name: typeof fn.name === "string" ? fn.name : `tool ${i}`, value: t }
  })
  const all = list(body.messages)
  let first = 0
  while (first < all.length && isObject(all[first]) && SYSTEM_ROLES.has(String((all[first] as Json).role))) first++
  const system = all.slice(0, first).map((m, i) => ({
    path: `messages[${i}]`,
    value: m,
    text: textOfContent((m as Json).content),
  }))
  const messages = all.slice(first).map((m, k) => {
    const i = first + k
    const { content, tool_calls: calls, ...head } = isObject(m) ? m : { content: m }
    const path = `messages[${i}]`
    const blocks = unitsOf(content, `${path}.content`)
    list(calls).forEach((call, j) => {
      blocks.push({ path: `${path}.tool_calls[${j}]`, value: call, kind: "tool_call" })
    })
    return { path, role: String(head.role ?? ""), head, blocks }
  })
  return withSession(body, { tools, system, messages })
}
