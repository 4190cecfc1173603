/** The OpenAI Responses body taken apart into its caching units (the cache explainer reads it). */
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

/** OpenAI Responses: `instructions`, then leading system or developer items, then the input items. */
export function responsesWireParts(body: Json): WireParts {
  const tools = list(body.tools).map((t, i) => ({
    path: `tools[${i}]`,
    name:
      isObject(t) && typeof t.name === "string" ? t.name : isObject(t) ? String(t.type ?? `tool ${i}`) : `tool ${i}`,
    value: t,
  }))
  const system: WireParts["system"] = []
  if (typeof body.instructions === "string" && body.instructions)
    system.push({ path: "instructions", value: body.instructions, text: body.instructions })
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : list(body.input)
  let first = 0
  while (first < input.length && isObject(input[first]) && SYSTEM_ROLES.has(String((input[first] as Json).role))) {
    system.push({ path: `input[${first}]`, value: input[first], text: textOfContent((input[first] as Json).content) })
    first++
  }
  const messages = input.slice(first).map((item, k) => {
    const path = `input[${first + k}]`
    const object = isObject(item) ? item : { content: item }
    if (object.type === "message" || (object.type === undefined && "role" in object)) {
      const { content, ...head } = object
      return { path, role: String(head.role ?? ""), head, blocks: unitsOf(content, `${path}.content`) }
    }
    // A function call, its output, a reasoning item: one item, one block.
    const role = object.type === "function_call_output" ? "tool" : "assistant"
    return { path, role, head: {}, blocks: [{ path, value: object, kind: String(object.type ?? "item") }] }
  })
  return withSession(body, { tools, system, messages })
}
