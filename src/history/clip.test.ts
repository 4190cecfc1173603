import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { clipText, clipToolResult } from "./clip.js"

describe("clipping an oversized tool result", () => {
  it("keeps the head and the tail, and says how many characters and which lines were removed", () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join("\n")
    const { text: out, removed } = clipText(text, 2_000, "read_file")
    expect(out.startsWith("line 1\n")).toBe(true)
    expect(out.endsWith("line 1000")).toBe(true)
    expect(out.length).toBeLessThan(2_000)
    const notice =
      /\[promptline: ([\d,]+) characters \(([\d,]+) lines, (\d+)–(\d+) of this output\) were removed here.*read_file with start_line (\d+) and end_line (\d+)/.exec(
        out,
      )
    expect(notice).not.toBeNull()
    expect(Number(notice![1]!.replace(/,/g, ""))).toBe(removed)
    const [first, last] = [Number(notice![3]), Number(notice![4])]
    expect(out).toContain(`line ${first - 1}\n`)
    expect(out).not.toContain(`line ${first}\n`)
    expect(out).toContain(`line ${last + 1}`)
    expect(Number(notice![2]!.replace(/,/g, ""))).toBe(last - first + 1)
  })

  it("for any text: unchanged when it fits; otherwise bounded, and head + removed + tail is the whole", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 6000 }), fc.integer({ min: 500, max: 5000 }), (text, max) => {
        const { text: out, removed } = clipText(text, max, "execute_command")
        if (text.length <= max) {
          expect(out).toBe(text)
          return
        }
        expect(out.length).toBeLessThanOrEqual(max + 200)
        const at = out.indexOf("\n[promptline: ")
        const end = out.indexOf("]\n", at)
        expect(at + (out.length - end - 2) + removed).toBe(text.length)
      }),
    )
  })

  it("cuts text blocks of a result in proportion and leaves images alone", () => {
    const image = { type: "image" as const, mediaType: "image/png", data: "AAAA" }
    const { block, removed } = clipToolResult(
      { type: "tool_result", toolUseId: "c", content: [{ type: "text", text: "x".repeat(10_000) }, image] },
      3_000,
      "web_fetch",
    )
    expect(removed).toBeGreaterThan(6_000)
    expect(Array.isArray(block.content) && block.content[1]).toEqual(image)
  })
})
