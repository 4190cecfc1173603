import type { ToolOutcome, TouchedPath } from "./types.js"

/** A successful outcome. */
export function success(
  content: ToolOutcome["content"],
  summary: string,
  extra: Partial<Omit<ToolOutcome, "content" | "summary" | "isError">> = {},
): ToolOutcome {
  return { content, isError: false, summary, touched: extra.touched ?? [], ...omitTouched(extra) }
}

/** A failed outcome: the message goes to the model, the summary to the user. */
export function failure(
  message: string,
  summary: string,
  extra: Partial<Omit<ToolOutcome, "content" | "summary" | "isError">> = {},
): ToolOutcome {
  return { content: message, isError: true, summary, touched: extra.touched ?? [], ...omitTouched(extra) }
}

function omitTouched(extra: Partial<ToolOutcome>): Partial<ToolOutcome> {
  const { touched: _touched, ...rest } = extra
  return rest
}

/** A read of one path. */
export const readOf = (path: string): TouchedPath[] => [{ path, access: "read" }]

/** A write of one path. */
export const writeOf = (path: string): TouchedPath[] => [{ path, access: "write" }]

/** Shortens text to one line of at most `max` characters, for summaries. */
export function oneLine(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/** `n noun` with a plural s when n is not 1. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`
}

/** Cuts text to at most `max` characters, adding a visible notice of what was left out. */
export function capText(text: string, max: number, what = "characters"): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false }
  const omitted = text.length - max
  return { text: `${text.slice(0, max)}\n\n[… ${omitted} more ${what} not shown (limit ${max}).]`, cut: true }
}
