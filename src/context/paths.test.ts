import { join, resolve, sep } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { entryPath, isInside } from "./paths.js"

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

describe("isInside", () => {
  it("takes a name that only starts with two dots as inside, and `..` or another root as outside", () => {
    const root = resolve("/w/repo")
    expect(isInside(root, root)).toBe(true)
    expect(isInside(root, join(root, "..cache", "a"))).toBe(true)
    expect(isInside(root, join(root, "..."))).toBe(true)
    expect(isInside(root, resolve(root, ".."))).toBe(false)
    expect(isInside(root, resolve(root, "../repo-2"))).toBe(false)
    expect(isInside(root, resolve("/elsewhere"))).toBe(false)
  })

  it("agrees with walking up from the child (property)", () => {
    const segment = fc.stringMatching(/^[a-z.]{1,5}$/).filter((s) => s !== "." && s !== "..")
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 3 }), fc.array(segment, { maxLength: 3 }), (a, b) => {
        const parent = resolve("/r", ...a)
        const child = resolve("/r", ...b)
        let up = child
        let found = up === parent
        while (!found && up !== resolve(up, "..")) {
          up = resolve(up, "..")
          found = up === parent
        }
        expect(isInside(parent, child)).toBe(found)
      }),
    )
  })
})
