/**
 * The sections of a system prompt read from its text alone. promptline's prompts start each section with a
 * top-level Markdown heading (`# Rules`), so a prompt with such headings is split at them and each part is
 * named by its heading; any other prompt is split into paragraphs (`paragraph 3`).
 */

/** One section: its name and its exact text (the pieces joined again give the whole text back). */
export interface TextSection {
  name: string
  text: string
}

const HEADING = /^# (.+)$/gm

/** Splits a system prompt at its top-level headings, or into paragraphs when it has none. */
export function splitSections(text: string): TextSection[] {
  if (text === "") return []
  const starts = [...text.matchAll(HEADING)].map((m) => ({ at: m.index ?? 0, name: m[1]!.trim() }))
  if (starts.length > 0) {
    const out: TextSection[] = []
    if (starts[0]!.at > 0) out.push({ name: "preamble", text: text.slice(0, starts[0]!.at) })
    starts.forEach((s, i) => {
      out.push({ name: s.name, text: text.slice(s.at, starts[i + 1]?.at ?? text.length) })
    })
    return out
  }
  // Paragraphs: each keeps the blank lines that end it, so the pieces add up to the text.
  const out: TextSection[] = []
  const re = /\n\s*\n/g
  let from = 0
  let n = 1
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const end = m.index + m[0].length
    out.push({ name: `paragraph ${n++}`, text: text.slice(from, end) })
    from = end
  }
  if (from < text.length) out.push({ name: `paragraph ${n}`, text: text.slice(from) })
  return out
}
