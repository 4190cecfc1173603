import { join, resolve, sep } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { entryPath } from "./paths.js"

/** A name a folder listing can hold: one path segment, never `.` or `..`. */
const entryName = fc
  .string({ minLength: 1, maxLength: 8 })
  .map((s) => s.replaceAll("/", "_").replaceAll("\\", "_").replaceAll("\0", "_"))
  .filter((s) => s !== "." && s !== "..")

/** A normalized absolute folder, the file-system root included. */
const folder = fc.array(entryName, { maxLength: 4 }).map((parts) => resolve(sep, ...parts))

describe("entryPath", () => {
  it("gives what join gives for a normalized folder and one entry name", () => {
    fc.assert(
      fc.property(folder, entryName, (dir, name) => {
        expect(entryPath(dir, name)).toBe(join(dir, name))
      }),
    )
  })

  it("adds no second separator after the root", () => {
    expect(entryPath(resolve(sep), "a")).toBe(join(resolve(sep), "a"))
  })
})
