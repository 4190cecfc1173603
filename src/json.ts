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
