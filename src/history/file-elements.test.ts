import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { dedupFileReads, dedupNotice } from "./dedup.js"
import { fileElements, namedElements, replaceFileElements } from "./file-elements.js"
import type { Message } from "./message.js"
import { INSTRUCTION_PATTERN, instructionsIn } from "./truncate.js"

/** The regex dedup used before: same elements, but quadratic on unclosed open tags. */
const regexOf = (tag: string) => new RegExp(`<${tag} path="([^"]+)">([\\s\\S]*?)<\\/${tag}>`, "g")

const fragment = fc.constantFrom(
  '<file_content path="a.ts">',
  '<file_content path="b.ts">',
  '<file_content path="">',
  '<file_content path="x',
  "</file_content>",
  "</file_content",
  "body ",
  '"',
  "\n",
)
const text = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(""))

describe("fileElements", () => {
  it("finds the same elements as the lazy regex", () => {
    fc.assert(
      fc.property(text, (t) => {
        const ours = [...fileElements(t, "file_content")].map((e) => [t.slice(e.start, e.end), e.path, e.inner])
        const regex = [...t.matchAll(regexOf("file_content"))].map((m) => [m[0], m[1], m[2]])
        expect(ours).toEqual(regex)
      }),
      { numRuns: 300 },
    )
  })

  it("replaces the same elements as the regex replace", () => {
    fc.assert(
      fc.property(text, (t) => {
        const swap = (path: string) => (path === "a.ts" ? `<file_content path="a.ts">gone</file_content>` : undefined)
        const ours = replaceFileElements(t, "file_content", (e) => swap(e.path))
        const regex = t.replace(regexOf("file_content"), (whole, path: string) => swap(path) ?? whole)
        expect(ours).toBe(regex)
      }),
      { numRuns: 300 },
    )
  })

  it("dedups a file mentioned after a megabyte of unclosed open tags (was quadratic)", () => {
    const unclosed = '<file_content path="a.ts">x'.repeat(40_000)
    const mention = `${unclosed}</file_content>`
    const view: Message[] = [
      { id: "u1", role: "user", ts: 0, content: [{ type: "text", text: mention }] },
      { id: "a1", role: "assistant", ts: 1, content: [{ type: "text", text: "ok" }] },
      { id: "u2", role: "user", ts: 2, content: [{ type: "text", text: mention }] },
    ]
    const edits = dedupFileReads(view, { now: 3 })
    expect(edits).toHaveLength(1)
    expect(edits[0]).toMatchObject({ messageId: "u1", block: 0 })
    expect(edits[0]!.content).toEqual({
      type: "text",
      text: `<file_content path="a.ts">${dedupNotice("a.ts")}</file_content>`,
    })
  })
})

const instructionFragment = fc.constantFrom(
  "<instructions>",
  '<instructions path="a.md">',
  "<instructionsX>",
  "<project_instructions>",
  "</instructions>",
  "</project_instructions>",
  "<instructions",
  ">",
  "rule ",
  "<",
)
const instructionText = fc.array(instructionFragment, { maxLength: 40 }).map((parts) => parts.join(""))

describe("namedElements", () => {
  it("finds the same elements as the instruction regex", () => {
    fc.assert(
      fc.property(instructionText, (t) => {
        const regex = [...t.matchAll(new RegExp(INSTRUCTION_PATTERN.source, "g"))].map((m) => m[0])
        expect(namedElements(t, ["project_instructions", "instructions"])).toEqual(regex)
      }),
      { numRuns: 400 },
    )
  })

  it("finds instructions after a megabyte of unclosed open tags, and many distinct ones (was quadratic)", () => {
    const user = (text: string): Message => ({ id: "u", role: "user", ts: 0, content: [{ type: "text", text }] })
    const unclosed = "<instructions>x".repeat(70_000)
    expect(instructionsIn([user(`${unclosed}<project_instructions>keep</project_instructions>`)])).toEqual([
      "<project_instructions>keep</project_instructions>",
    ])
    const many = Array.from({ length: 30_000 }, (_, i) => `<instructions>${i}</instructions>`)
    expect(instructionsIn([user(many.join("")), user(many.join(""))])).toEqual(many)
  })
})
