/** Shortening a set of paths or names to a width so that two different ones never read the same. */

/** The narrowest width `shortenAll` accepts: room for a head, the ellipsis, a counter and a tail. */
export const MIN_SHORTEN_WIDTH = 8

const ELLIPSIS = "…"

const chars = (text: string): string[] => [...text]

/** `head…tail` with `keep` characters in all, the head taking `headShare` of them. */
function elideMiddle(text: string[], width: number, headShare: number): string {
  const keep = width - 1
  const head = Math.max(0, Math.min(keep, Math.round(keep * headShare)))
  return text.slice(0, head).join("") + ELLIPSIS + text.slice(text.length - (keep - head)).join("")
}

/**
 * The ways to shorten one path, best first: leading folders, `…/`, then the last segments (the file name
 * always), with more trailing segments in later candidates; then character-level middle elisions.
 */
function candidates(text: string, width: number): string[] {
  const all = chars(text)
  const out: string[] = []
  const segments = text.split("/")
  for (let tail = 1; tail < segments.length; tail++) {
    const end = `${ELLIPSIS}/${segments.slice(segments.length - tail).join("/")}`
    // The leading folders keep their slash, so the result reads `src/…/rules/AGENTS.md`.
    const room = width - chars(end).length
    if (room < 0) break
    let lead = ""
    for (const segment of segments.slice(0, segments.length - tail)) {
      const next = `${lead}${segment}/`
      if (chars(next).length > room) break
      lead = next
    }
    out.push(lead + end)
  }
  // Keep the end (the file name, an extension) first, then move the cut towards the end.
  for (const share of [0.35, 0.2, 0.5, 0.65, 0.8, 0.1, 0]) out.push(elideMiddle(all, width, share))
  return out
}

/**
 * Shortens each text to at most `width` characters so that different texts stay different: a text that fits
 * is kept as it is; a longer one loses its middle (`src/…/deep/file.ts`), keeping its end and enough leading
 * folders to differ from the others; when every such cut is taken, a counter is put in the cut (`src…~2…ts`).
 * Equal texts map to equal results; the result for a text depends only on the set, not its order.
 */
export function shortenAll(texts: readonly string[], width: number): Map<string, string> {
  if (!Number.isInteger(width) || width < MIN_SHORTEN_WIDTH)
    throw new RangeError(`shortenAll needs a width of at least ${MIN_SHORTEN_WIDTH}, got ${width}`)
  const unique = [...new Set(texts)].sort()
  const result = new Map<string, string>()
  const used = new Set<string>()
  const long: string[] = []
  for (const text of unique) {
    if (chars(text).length <= width) {
      result.set(text, text)
      used.add(text)
    } else long.push(text)
  }
  // Candidates shared by two long texts name neither of them; skip those so neither wins by sort order.
  const owners = new Map<string, number>()
  const options = new Map(long.map((t) => [t, [...new Set(candidates(t, width))]]))
  for (const list of options.values()) for (const c of list) owners.set(c, (owners.get(c) ?? 0) + 1)
  for (const text of long) {
    const list = options.get(text)!
    let pick = list.find((c) => owners.get(c) === 1 && !used.has(c))
    for (let n = 1; pick === undefined; n++) {
      const mark = `${ELLIPSIS}~${n}${ELLIPSIS}`
      const all = chars(text)
      const keep = Math.max(0, width - chars(mark).length)
      const head = Math.floor(keep / 2)
      const candidate = all.slice(0, head).join("") + mark + all.slice(all.length - (keep - head)).join("")
      if (!used.has(candidate)) pick = candidate
    }
    result.set(text, pick)
    used.add(pick)
  }
  return result
}
