/**
 * Wrapping outside text (files, tool output, command output, paths) in the tags promptline speaks to the model
 * in. Text inside a wrapper must not be able to close it or pose as another of our wrappers, and an attribute
 * value must not be able to end its quotes: every wrapper the project writes goes through `wrapTag`.
 */

import { WRAPPER_TAGS } from "./notices.js"

export { WRAPPER_TAGS } from "./notices.js"

function tagPattern(tags: readonly string[]): RegExp | undefined {
  const names = tags.map((t) => t.replace(/[^a-zA-Z0-9_-]/g, "")).filter(Boolean)
  if (names.length === 0) return undefined
  // `<`, optional space and slash, one of the names, then the end of the name.
  return new RegExp(`<(\\s*/?\\s*(?:${names.join("|")})(?=[\\s>/]|$))`, "gi")
}

const DEFAULT_PATTERN = tagPattern(WRAPPER_TAGS)

/** Neutralizes every opening or closing tag named in `tags` (any case) inside `text`: its `<` becomes `&lt;`. */
export function neutralizeTags(text: string, tags: readonly string[] = WRAPPER_TAGS): string {
  if (!text.includes("<")) return text
  const pattern = tags === WRAPPER_TAGS ? DEFAULT_PATTERN : tagPattern(tags)
  return pattern ? text.replace(pattern, "&lt;$1") : text
}

const ATTRIBUTE_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  '"': "&quot;",
  "<": "&lt;",
  ">": "&gt;",
  "\n": "&#10;",
  "\r": "&#13;",
  "\t": "&#9;",
}
const ATTRIBUTE_UNESCAPES: Record<string, string> = Object.fromEntries(
  Object.entries(ATTRIBUTE_ESCAPES).map(([raw, escaped]) => [escaped, raw]),
)

/** An attribute value escaped for a double-quoted attribute: it cannot end the quotes, the tag or the line. */
export function escapeAttribute(value: string): string {
  return value.replace(/[&"<>\n\r\t]/g, (c) => ATTRIBUTE_ESCAPES[c]!)
}

/** The value `escapeAttribute` was given, read back from its escaped form. */
export function unescapeAttribute(escaped: string): string {
  return escaped.replace(/&(?:amp|quot|lt|gt|#10|#13|#9);/g, (e) => ATTRIBUTE_UNESCAPES[e]!)
}

/** How `wrapTag` lays out a wrapper. */
export interface WrapOptions {
  /** Attributes of the opening tag, in order; values are escaped. */
  attributes?: Readonly<Record<string, string>>
  /** Text on the tags' own line (`<tag>text</tag>`) instead of lines of its own. */
  inline?: boolean
  /** Tags neutralized inside the text; default WRAPPER_TAGS (the wrapper's own tag is always added). */
  tags?: readonly string[]
}

/**
 * Wraps `text` in `<tag attr="…">`: the wrapper's own tag and every tag of WRAPPER_TAGS inside the text are
 * neutralized and attribute values escaped, so the closing tag appears exactly once, at the end.
 */
export function wrapTag(tag: string, text: string, options: WrapOptions = {}): string {
  const tags = options.tags ?? WRAPPER_TAGS
  const body = neutralizeTags(text, tags.includes(tag) ? tags : [...tags, tag])
  const attributes = Object.entries(options.attributes ?? {})
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join("")
  return options.inline ? `<${tag}${attributes}>${body}</${tag}>` : `<${tag}${attributes}>\n${body}\n</${tag}>`
}
