import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, expectTypeOf, it } from "vitest"
import { ERROR_CODES, type ErrorCode, type FileError, PromptlineError, type ValidationError } from "./errors.js"
import { ProviderError, type ProviderErrorKind } from "./providers/errors.js"

const DOC = readFileSync(join(import.meta.dirname, "..", "docs", "errors.md"), "utf8")

describe("error codes", () => {
  it("are one union: an unlisted code does not compile, and subclasses narrow it", () => {
    // @ts-expect-error a code that is not in ERROR_CODES
    expect(new PromptlineError("not-a-code", "x").code).toBe("not-a-code")
    expectTypeOf(new PromptlineError("no-task", "x").code).toEqualTypeOf<"no-task">()
    expectTypeOf<ProviderError["code"]>().toEqualTypeOf<ProviderErrorKind>()
    expectTypeOf<ValidationError["code"]>().toEqualTypeOf<"invalid-input">()
    expectTypeOf<FileError["code"]>().toEqualTypeOf<ErrorCode>()
    expect(new ProviderError("quota", "out of credit").code).toBe("quota")
  })

  it("are listed once each", () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length)
  })

  it("each have one line in docs/errors.md, and the page lists no other code", () => {
    const documented = [...DOC.matchAll(/^- `([a-z0-9-]+)`: \S/gm)].map((m) => m[1])
    expect(documented.sort()).toEqual([...ERROR_CODES].sort())
  })
})
