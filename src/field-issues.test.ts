import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { ValidationError } from "./errors.js"
import { fieldIssues, fieldPath, issuesLine, issueText } from "./field-issues.js"

const schema = z.object({
  name: z.string(),
  instructions: z.array(z.object({ text: z.string() })),
  features: z.object({ browser: z.boolean() }).optional(),
})

describe("zod issues as promptline shows them", () => {
  it("renders field paths with names dotted and indexes bracketed", () => {
    expect(fieldPath([])).toBe("")
    expect(fieldPath(["features", "browser"])).toBe("features.browser")
    expect(fieldPath(["instructions", 2, "text"])).toBe("instructions[2].text")
    expect(fieldPath(["messages", 0, "content", 1, "type"])).toBe("messages[0].content[1].type")
    expect(fieldPath([3, "a"])).toBe("[3].a")
  })

  it("lists every issue of a failed parse, and renders them in one line or in a ValidationError", () => {
    const parsed = schema.safeParse({ name: 1, instructions: [{ text: "a" }, {}], features: { browser: "yes" } })
    expect(parsed.success).toBe(false)
    const issues = fieldIssues(parsed.error!)
    expect(issues.map((i) => i.path)).toEqual(["name", "instructions[1].text", "features.browser"])
    expect(issuesLine(issues)).toBe(
      "name: Invalid input: expected string, received number; " +
        "instructions[1].text: Invalid input: expected string, received undefined; " +
        "features.browser: Invalid input: expected boolean, received string",
    )
    const error = new ValidationError("thing", issues, "thing.json")
    expect(error.message.split("\n")).toEqual([
      "thing.json: invalid thing (3 problems)",
      ...issues.map((i) => `  ${issueText(i)}`),
    ])
  })

  it("names a root issue as asked: (root) by default, another word, or the message alone", () => {
    const root = fieldIssues(z.object({}).safeParse(5).error!)
    expect(root).toEqual([{ path: "", message: "Invalid input: expected object, received number" }])
    expect(issuesLine(root)).toBe("(root): Invalid input: expected object, received number")
    expect(issuesLine(root, "(server)")).toBe("(server): Invalid input: expected object, received number")
    expect(issuesLine(root, "")).toBe("Invalid input: expected object, received number")
  })

  it("a path renders to a string that names each key in order, and is empty only for the root", () => {
    const key = fc.oneof(fc.nat(50), fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/))
    fc.assert(
      fc.property(fc.array(key, { maxLength: 6 }), (path) => {
        const text = fieldPath(path)
        expect(text === "").toBe(path.length === 0)
        const back = [...text.matchAll(/\[(\d+)\]|\.?([a-zA-Z][a-zA-Z0-9_]*)/g)].map((m) =>
          m[1] !== undefined ? Number(m[1]) : m[2],
        )
        expect(back).toEqual(path)
      }),
    )
  })
})
