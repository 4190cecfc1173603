import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import type { PromptContext } from "../context/prompt-context.js"
import type { GatherEntry, GatherReport } from "../context/report.js"
import { TokenCounter } from "../history/tokens.js"
import { PromptBuilder } from "../prompt/builder.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { renderText } from "./render-text.js"
import { type InspectInput, inspectReport } from "./report.js"
import { bar, wrap } from "./text.js"

let counter: TokenCounter
const builder = new PromptBuilder()
beforeAll(async () => {
  counter = await TokenCounter.create()
})
const report = (context: PromptContext, extra: Partial<InspectInput> = {}) =>
  inspectReport({ built: builder.build(context), context, counter, ...extra })

const ANSI = /\u001b\[\d+m/g
const columns = (text: string) => Math.max(...text.split("\n").map((l) => [...l.replace(ANSI, "")].length))

describe("renderText", () => {
  it("shows the figures, the sections with bars, the tools, the cache layout and the warnings", () => {
    const r = report(basicContext({ placement: "system" }))
    const text = renderText(r)
    expect(text).toContain(`Prompt: ${r.totals.total.toLocaleString("en-US")} tokens`)
    expect(text).toMatch(/ {2}tools \(18 definitions\) +tools +█+/)
    expect(text).toMatch(/ {2}system-info +system +[█▏▎▍▌▋▊▉·]{24} +\d+ +\d+\.\d%/)
    expect(text).toContain("The provider adds 346 tokens once when any tool is defined.")
    expect(text).toMatch(/mcp__tracker__get_issue +mcp +\d+ {2}MCP tracker\/get_issue/)
    expect(text).toContain(`Prefix hash ${r.cache.hash.slice(0, 16)}`)
    expect(text).toContain("volatile: moves the prefix when it changes")
    expect(text).toContain("[volatile-in-prefix]")
    expect(text).toContain("No gather report")
  })

  it("fits in 100 columns and has no color codes unless asked", () => {
    const r = report(basicContext({ placement: "system" }), { maxShare: 0.001 })
    const plain = renderText(r)
    expect(columns(plain)).toBeLessThanOrEqual(100)
    expect(plain).not.toMatch(ANSI)
    const colored = renderText(r, { color: true })
    expect(colored).toMatch(ANSI)
    expect(colored.replace(ANSI, "")).toBe(plain)
  })

  it("fits in 100 columns whatever the paths, reasons and names (property)", () => {
    const entry = fc.record({
      path: fc.string({ minLength: 1, maxLength: 120 }).map((s) => s.replace(/\s/g, "_")),
      status: fc.constantFrom<GatherEntry["status"]>("loaded", "skipped", "ignored", "conditional"),
      reason: fc.string({ maxLength: 200 }),
    })
    const serverName = fc.stringMatching(/^[a-z][a-z0-9_]{0,40}$/)
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 5 }),
        serverName,
        fc.stringMatching(/^[a-z_]{1,60}$/),
        (entries, server, tool) => {
          const gather: GatherReport = {
            instructions: entries.map((e) => ({ kind: "instruction", scope: "project", ...e })),
            skills: [],
            mcpServers: [],
          }
          const context = basicContext({
            mcpServers: [{ name: server, tools: [{ name: tool, description: "x", inputSchema: { type: "object" } }] }],
          })
          return columns(renderText(report(context, { gather }))) <= 100
        },
      ),
      { numRuns: 25 },
    )
  })
})

describe("text helpers", () => {
  it("bar fills its width in eighths", () => {
    expect(bar(0, 4)).toBe("····")
    expect(bar(1, 4)).toBe("████")
    expect(bar(0.5, 4)).toBe("██··")
    expect(bar(1 / 32, 4)).toBe("▏···")
  })

  it("wrap keeps every line within the width and loses no word (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^\S{1,30}$/), { maxLength: 40 }),
        fc.integer({ min: 10, max: 100 }),
        (words, width) => {
          const lines = wrap(words.join(" "), width, "  ")
          const ok = lines.every((l) => [...l].length <= width)
          return ok && lines.join(" ").replace(/\s+/g, "") === words.join("")
        },
      ),
    )
  })
})
