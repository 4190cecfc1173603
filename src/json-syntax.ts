import type * as Jsonc from "jsonc-parser"
import type { ParseError } from "jsonc-parser"
import { lazyModule } from "./lazy-module.js"

/** jsonc-parser (CommonJS), required on first use: importing this module loads nothing. */
const jsonc = lazyModule<typeof Jsonc>("jsonc-parser")

/** A JSON syntax error as a person reads it: what is wrong in plain words, and where (1-based line and column). */
export interface SyntaxProblem {
  message: string
  line: number
  column: number
}

/** What stands at the error's place, quoted, or "the end of the file". */
function found(text: string, error: ParseError): string {
  if (error.offset >= text.length) return "the end of the file"
  if (text[error.offset] === "\uFEFF") return "a byte order mark (U+FEFF)"
  const token = text.slice(error.offset, error.offset + Math.max(1, Math.min(error.length, 24))).split("\n")[0]!
  // A string token is quoted already.
  if (token.length > 1 && token.startsWith('"') && token.endsWith('"')) return token
  return JSON.stringify(token === "" ? text[error.offset] : token)
}

/** The last character before `offset` that is not white space. */
function before(text: string, offset: number): string | undefined {
  for (let i = offset - 1; i >= 0; i--) if (!/\s/.test(text[i]!)) return text[i]
  return undefined
}

/** Plain words for each of jsonc-parser's error codes; `at` is what stands at the place. */
const WORDS: Record<string, (at: string, text: string, error: ParseError) => string> = {
  InvalidSymbol: (at) => `${at} is not allowed here`,
  InvalidNumberFormat: (at) => `${at} is not a valid number`,
  PropertyNameExpected: (at, text, e) =>
    before(text, e.offset) === ","
      ? `a comma with no property after it, before ${at}`
      : `expected a property name in double quotes, found ${at}`,
  ValueExpected: (at, text, e) =>
    before(text, e.offset) === "," && /^"[\]}]"$/.test(at)
      ? `a comma with no value after it, before ${at}`
      : `expected a value, found ${at}`,
  ColonExpected: (at) => `expected a colon after the property name, found ${at}`,
  CommaExpected: (at) =>
    /^"[\]}]"$/.test(at) ? `a comma or a closing bracket is missing before ${at}` : `a comma is missing before ${at}`,
  CloseBraceExpected: (at) => `expected a comma or } to close the object, found ${at}`,
  CloseBracketExpected: (at) => `expected a comma or ] to close the array, found ${at}`,
  EndOfFileExpected: (at) => `more text after the end of the JSON value: ${at}`,
  InvalidCommentToken: () => "a comment, which plain JSON does not allow",
  UnexpectedEndOfComment: () => "a /* comment that is never closed with */",
  UnexpectedEndOfString: () => 'a string that is never closed with "',
  UnexpectedEndOfNumber: (at) => `a number cut short at ${at}`,
  InvalidUnicode: () => "a \\u escape without four hexadecimal digits",
  InvalidEscapeCharacter: (at) => `an escape JSON does not know: ${at}`,
  InvalidCharacter: () => "a line break or other control character inside a string (write it as \\n, \\t, ...)",
}

/** Describes a jsonc-parser syntax error of `text` in plain words, with its line and column. */
export function describeSyntaxError(text: string, error: ParseError): SyntaxProblem {
  const head = text.slice(0, error.offset)
  const line = head.split("\n").length
  const column = error.offset - (head.lastIndexOf("\n") + 1) + 1
  const name = jsonc().printParseErrorCode(error.error)
  const words = WORDS[name]
  return { message: words ? words(found(text, error), text, error) : `a syntax error (${name})`, line, column }
}
