/** One `<tag path="…">…</tag>` element of a text. */
export interface FileElement {
  /** Offsets of the whole element. */
  start: number
  end: number
  path: string
  /** The text between the open and the close tag. */
  inner: string
}

/**
 * The `<tag path="…">…</tag>` elements of a text in order, each closed by the first close tag after it, in
 * linear time. (A regex with a lazy body rescans the rest of the text for every open tag that is never
 * closed: quadratic on a megabyte of unclosed tags.) Once an open tag has no close tag after it, no later
 * one has either, so the search stops there; the result is the same as the regex's.
 */
export function* fileElements(text: string, tag: string): Generator<FileElement> {
  // Most texts hold no element: one substring search, no regex made.
  const first = text.indexOf(`<${tag} path="`)
  if (first < 0) return
  const open = new RegExp(`<${tag} path="([^"]+)">`, "g")
  open.lastIndex = first
  const close = `</${tag}>`
  for (;;) {
    const m = open.exec(text)
    if (!m) return
    const innerStart = m.index + m[0].length
    const closeAt = text.indexOf(close, innerStart)
    if (closeAt < 0) return
    const end = closeAt + close.length
    yield { start: m.index, end, path: m[1]!, inner: text.slice(innerStart, closeAt) }
    open.lastIndex = end
  }
}

/** The text with the elements `swap` gives a replacement for replaced by it (others left as they are). */
export function replaceFileElements(
  text: string,
  tag: string,
  swap: (element: FileElement) => string | undefined,
): string {
  let out = ""
  let at = 0
  for (const e of fileElements(text, tag)) {
    const replacement = swap(e)
    if (replacement === undefined) continue
    out += text.slice(at, e.start) + replacement
    at = e.end
  }
  return at === 0 ? text : out + text.slice(at)
}

/**
 * The `<name …>…</name>` elements of a text (name one of `names`), each closed by the first matching close
 * tag, in order: what `/<(a|b)\b[^>]*>[\s\S]*?<\/\1>/g` matches, in linear time. The regex rescans the rest
 * of the text for every open tag that is never closed; here a name without a close tag after some point is
 * skipped from there on, and the next `>` is looked up once per stretch of text.
 */
export function namedElements(text: string, names: readonly string[]): string[] {
  const out: string[] = []
  const open = new RegExp(`<(${names.join("|")})\\b`, "g")
  const unclosed = new Set<string>()
  let gt = -1
  for (;;) {
    const m = open.exec(text)
    if (!m) break
    const name = m[1]!
    if (unclosed.has(name)) continue
    const afterName = m.index + m[0].length
    if (gt < afterName) gt = text.indexOf(">", afterName)
    if (gt < 0) break
    const close = `</${name}>`
    const closeAt = text.indexOf(close, gt + 1)
    if (closeAt < 0) {
      unclosed.add(name)
      continue
    }
    const end = closeAt + close.length
    out.push(text.slice(m.index, end))
    open.lastIndex = end
  }
  return out
}
