import type * as Jsonc from "jsonc-parser"
import type { ParseError } from "jsonc-parser"
import { type ErrorCode, FileError } from "./errors.js"
import { describeSyntaxError } from "./json-syntax.js"
import { lazyModule } from "./lazy-module.js"

/** jsonc-parser (CommonJS), required on first use: importing this module loads nothing. */
const jsonc = lazyModule<typeof Jsonc>("jsonc-parser")

/**
 * Parses strict JSON; a syntax error becomes a FileError naming the file, line and cause. The built-in parser
 * reads what is valid (several times faster than jsonc-parser on a history of megabytes); jsonc-parser, with
 * the same strictness, reads what it refused, to name the line and cause (or to accept what it accepts).
 */
export function parseJsonDocument(raw: string, file: string, code: ErrorCode = "invalid-json"): unknown {
  try {
    return JSON.parse(raw)
  } catch {}
  const errors: ParseError[] = []
  const value = jsonc().parse(raw, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  })
  const first = errors[0]
  if (first) {
    const { message, line, column } = describeSyntaxError(raw, first)
    throw new FileError(code, file, `not valid JSON: ${message}`, { line, column })
  }
  return value
}

/** The deepest nesting of arrays and objects a client's JSON may have (every layer that walks JSON recurses). */
export const MAX_JSON_DEPTH = 128

const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found by one pass over the bytes without
 * recursion or parsing (so it is safe on any input; brackets inside strings do not count). Text that is not
 * valid JSON gets an answer too, which the parser that follows makes moot. Runs on every gateway request before
 * anything else reads its body: a string, most of a request's bytes, is skipped with a native search for its
 * closing quote rather than byte by byte.
 */
export function nestsDeeperThan(text: Uint8Array | string, limit: number): boolean {
  const bytes =
    typeof text === "string"
      ? Buffer.from(text, "utf8")
      : Buffer.isBuffer(text)
        ? text
        : Buffer.from(text.buffer, text.byteOffset, text.byteLength)
  let depth = 0
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if (b === QUOTE) {
      const end = closingQuote(bytes, i)
      // A string that never ends holds the rest of the text: no bracket after it counts.
      if (end < 0) return false
      i = end
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > limit) return true
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth--
  }
  return false
}

/** Where the string opened at `open` ends: the next quote after it not escaped by an odd run of backslashes (-1: none). */
function closingQuote(bytes: Buffer, open: number): number {
  for (let at = bytes.indexOf(QUOTE, open + 1); at >= 0; at = bytes.indexOf(QUOTE, at + 1)) {
    let backslashes = 0
    while (at - backslashes - 1 > open && bytes[at - backslashes - 1] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return at
  }
  return -1
}
