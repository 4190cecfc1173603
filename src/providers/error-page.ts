/**
 * The words of an error page: what a proxy, a load balancer or a misconfigured base URL answers instead of the
 * API's JSON (nginx's "502 Bad Gateway", a sign-in page), reduced to a short line of plain text fit for an error
 * message. Scripts, styles and comments are dropped whole; no markup survives.
 */

/** How much of a page is read for its words (the title and the start of the text are near the top). */
const READ_LIMIT = 64 * 1024

const NAMED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " }

/** Whether a body looks like markup (HTML or XML) rather than plain text. */
export function isMarkup(body: string): boolean {
  return /^\s*<(?:!doctype|html|\?xml|head|body|!--|[a-z][a-z0-9]*[\s>/])/i.test(body)
}

/** Character references decoded; anything unknown, and anything that would be a control character, dropped. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (_, ref: string) => {
    if (ref[0] !== "#") return NAMED[ref.toLowerCase()] ?? " "
    const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1))
    return code >= 0x20 && code <= 0x10ffff && (code < 0x7f || code > 0x9f) ? String.fromCodePoint(code) : " "
  })
}

/** Markup as plain text: elements whose content is not text dropped whole, tags removed, whitespace folded. */
function plain(markup: string): string {
  const text = markup
    .replace(/<!--[\s\S]*?(?:-->|$)/g, " ")
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, " ")
    .replace(/<[^>]*(?:>|$)/g, " ")
  return decodeEntities(text)
    .replace(/[<>]/g, " ")
    .replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, " ")
    .trim()
}

/** The markup between `<title …>` and `</title>`, or "" (found by position, so no input makes it slow). */
function titleOf(markup: string): string {
  const lower = markup.toLowerCase()
  const open = lower.indexOf("<title")
  const start = open < 0 ? -1 : lower.indexOf(">", open)
  const end = start < 0 ? -1 : lower.indexOf("</title", start)
  return end < 0 ? "" : markup.slice(start + 1, end)
}

/**
 * An error page in at most `max` characters of plain text: its title when it has one, else the start of its
 * text. Never contains `<` or `>`, nor anything from a script, style or comment.
 */
export function errorPageText(page: string, max = 200): string {
  const head = page.slice(0, READ_LIMIT)
  const text = plain(titleOf(head)) || plain(head)
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
