import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { RunRenderer } from "./run-render.js"

type Step = { kind: "text"; delta: string } | { kind: "status" } | { kind: "tool" }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("text" as const), delta: fc.stringMatching(/^[a-z .\n]{0,12}$/) }),
  fc.constant({ kind: "status" as const }),
  fc.constant({ kind: "tool" as const }),
)

describe("RunRenderer", () => {
  it("starts every status and tool line on a line of its own, whatever the streamed text left open", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        let out = ""
        const renderer = new RunRenderer((t) => {
          out += t
        })
        let statuses = 0
        let text = ""
        for (const s of steps) {
          if (s.kind === "text") {
            renderer.render({ type: "text", delta: s.delta })
            text += s.delta
          } else if (s.kind === "status") renderer.status(`cache #${++statuses}: first: 0% cached\n`)
          else renderer.render({ type: "tool_call", id: "t", name: "read_file", input: { path: "a" } })
        }
        const lines = out.split("\n")
        for (let i = 1; i <= statuses; i++) expect(lines).toContain(`cache #${i}: first: 0% cached`)
        expect(lines.filter((l) => l.startsWith("→ ")).every((l) => l === "→ read_file path=a")).toBe(true)
        // The model's text is all there, in order: only line ends were added.
        const kept = lines.filter((l) => !l.startsWith("cache #") && !l.startsWith("→ ")).join("")
        expect(kept).toBe(text.replaceAll("\n", ""))
      }),
    )
  })

  it("ends an open line before something else writes to the terminal, and only then", () => {
    let out = ""
    const renderer = new RunRenderer((t) => {
      out += t
    })
    renderer.endLine()
    expect(out).toBe("")
    renderer.render({ type: "text", delta: "…the entry point." })
    renderer.endLine()
    renderer.endLine()
    expect(out).toBe("…the entry point.\n")
  })
})
