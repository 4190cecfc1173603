/** The Gemini body taken apart into its caching units (the cache explainer reads it). */
import { isObject, type Json, list, unitsOf, type WireParts, type WireTool } from "../wire-parts.js"

/** Gemini: `systemInstruction`, the function declarations, then `contents`. */
export function geminiWireParts(body: Json): WireParts {
  const tools: WireTool[] = []
  list(body.tools).forEach((group, i) => {
    const declarations = isObject(group) ? list(group.functionDeclarations) : []
    if (declarations.length === 0)
      tools.push({ path: `tools[${i}]`, name: Object.keys(group ?? {})[0] ?? "", value: group })
    declarations.forEach((d, j) => {
      const name = isObject(d) && typeof d.name === "string" ? d.name : `tool ${i}.${j}`
      tools.push({ path: `tools[${i}].functionDeclarations[${j}]`, name, value: d })
    })
  })
  const instruction = isObject(body.systemInstruction) ? body.systemInstruction : undefined
  const system = list(instruction?.parts).map((p, i) => ({
    path: `systemInstruction.parts[${i}]`,
    value: p,
    text: isObject(p) && typeof p.text === "string" ? p.text : "",
  }))
  const messages = list(body.contents).map((c, i) => {
    const { parts, ...head } = isObject(c) ? c : { parts: c }
    const path = `contents[${i}]`
    return { path, role: String(head.role ?? "user"), head, blocks: unitsOf(parts, `${path}.parts`) }
  })
  return { tools, system, messages }
}
