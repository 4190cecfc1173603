import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import type { PromptContext } from "../context/prompt-context.js"
import type { GatherEntry, GatherReport } from "../context/report.js"
import { TokenCounter } from "../history/tokens.js"
import { PromptBuilder } from "../prompt/builder.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { renderText } from "./render-text.js"
import { type InspectInput, inspectReport } from "./report.js"
import { bar, columnsOf, wrap } from "./text.js"

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

describe("renderText: width, paths, warnings, the window", () => {
  it("fits any width from 60 columns, and uses the room it is given (property)", () => {
    const r = report(basicContext({ placement: "system" }), { maxShare: 0.001 })
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 240 }), (width) => {
        const text = renderText(r, { width })
        return columns(text) <= width && columns(text) > Math.min(width, 100) - 10
      }),
      { numRuns: 30 },
    )
    expect(columns(renderText(r, { width: 20 }))).toBeLessThanOrEqual(60)
  })

  it("shows an exact count and calibrations within any width from 60 columns (property)", () => {
    const r = report(basicContext({ placement: "system" }))
    const endpoint = "http://127.0.0.1:40000/a/long/proxy/path/that/does/not/fit/v1/messages/count_tokens"
    r.exact = {
      status: "counted",
      format: "anthropic",
      endpoint,
      keySource: "ANTHROPIC_API_KEY",
      exact: 1_234_567,
      estimated: 1_200_000,
      ratio: 1_234_567 / 1_200_000,
      parts: [
        { id: "system", exact: 1_000_000, estimated: 990_000 },
        { id: "tools", exact: 200_000, estimated: 180_000 },
        { id: "messages", exact: 34_567, estimated: 30_000 },
      ],
      requests: 3,
    }
    r.calibrations = [
      { model: "claude-sonnet-4-5", ratio: 1.0833, samples: 12, source: "session", from: "20261201-101010-0a0b0c0d" },
      { model: "claude-sonnet-4-5", ratio: 1.02881, samples: 1, source: "endpoint", from: endpoint },
    ]
    const text = renderText(r, { width: 100 })
    expect(text).toMatch(/^ {2}total +1,234,567 +1,200,000 +\+34,567 +1\.029$/m)
    expect(text).toMatch(/^ {2}messages +34,567 +30,000 +\+4,567 +1\.152$/m)
    expect(text).toMatch(
      /^Calibration: reported ÷ counted 1\.083 over 12 requests \(session 20261201-101010-0a0b0c0d;/m,
    )
    expect(text.replace(/\n {2}/g, " ")).toContain("exact ÷ counted 1.029 over 1 count (the counting endpoint;")
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 240 }), (width) => columns(renderText(r, { width })) <= width),
      { numRuns: 20 },
    )
    r.exact = { status: "unavailable", code: "count-no-key", reason: "Anthropic needs an API key", estimated: 42 }
    expect(renderText(r)).toMatch(
      /^Exact count: unavailable, 42 tokens estimated\n {2}Anthropic needs an API key \[count-no-key\]$/m,
    )
  })

  it("never shows two different instruction paths, tool names or section labels as the same text", () => {
    const deep = "packages/very-long-package-name/services/billing-and-invoices"
    const gather: GatherReport = {
      instructions: ["alpha", "beta"].map((w) => ({
        kind: "instruction" as const,
        scope: "project" as const,
        status: "loaded" as const,
        path: `${deep}/${w}/.cursor/rules/AGENTS.md`,
      })),
      skills: [],
      mcpServers: [],
    }
    const tool = (name: string) => ({ name, description: "x", inputSchema: { type: "object" } })
    const context = basicContext({
      mcpServers: [
        {
          name: "issue_tracker_for_the_whole_company",
          tools: [tool("get_issue_with_all_comments_and_links_a"), tool("get_issue_with_all_comments_and_links_b")],
        },
      ],
    })
    for (const width of [60, 80, 100]) {
      const lines = renderText(report(context, { gather }), { width }).split("\n")
      const shown = lines.filter((l) => /^ {2}loaded {6}\S/.test(l)).map((l) => l.slice(14).split("  ")[0])
      expect(shown).toHaveLength(2)
      expect(shown[0]).not.toBe(shown[1])
      for (const s of shown) expect(s!.endsWith("AGENTS.md")).toBe(true)
      const tools = lines.filter((l) => /^ {2}mcp__\S+ +mcp /.test(l)).map((l) => l.trim().split(/ +/)[0])
      expect(tools).toHaveLength(2)
      expect(tools[0]).not.toBe(tools[1])
    }
  })

  it("prints one warnings list: the gather's warnings are not under a 'Warnings (0) none'", () => {
    const warning = { level: "warning" as const, code: "rule-invalid", message: "bad front matter", path: "x.mdc" }
    // On a day its model (Claude Sonnet 4.5) was not yet deprecated, so the given warning is the only one.
    const text = renderText(report(basicContext({ date: "2026-09-01" }), { diagnostics: [warning] }))
    expect(text).not.toContain("Warnings (0)")
    expect(text).toContain("Warnings (1)")
    expect(text.split("[rule-invalid]")).toHaveLength(2)
    expect(text).not.toMatch(/\bnone\b[\s\S]*\[rule-invalid\]/)
  })

  it("draws the whole window as one bar line with a legend", () => {
    const r = report(basicContext())
    const lines = renderText(r, { width: 100 }).split("\n")
    const at = lines.findIndex((l) => l.startsWith("Context window:"))
    expect(lines[at]).toContain(`${r.window.free.toLocaleString("en-US")} free`)
    const barLine = [...lines[at + 1]!.slice(2)]
    expect(barLine).toHaveLength(98)
    // Each part within a few columns of its share (parts below one column still get one, taken from the widest).
    const near = (glyph: string, share: number) =>
      expect(Math.abs(barLine.filter((c) => c === glyph).length - 98 * share)).toBeLessThanOrEqual(
        r.window.parts.length,
      )
    near("·", r.window.parts.at(-1)!.share)
    near("╳", r.window.reserve / r.window.window)
    near("▓", r.window.parts.find((p) => p.id === "tools")!.share)
    const legend = lines.slice(at + 2, at + 6).join(" ")
    for (const p of r.window.parts) expect(legend).toContain(p.label)
  })
})

describe("text helpers", () => {
  it("columnsOf splits the width exactly and shows every part above zero (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 12, max: 200 }),
        (shares, width) => {
          const cols = columnsOf(shares, width)
          const total = shares.reduce((a, b) => a + b, 0)
          if (total === 0) return cols.every((c) => c === 0)
          return (
            cols.reduce((a, b) => a + b, 0) === width &&
            shares.every((s, i) => (s > 0 ? cols[i]! >= 1 : cols[i] === 0)) &&
            shares.every((s, i) => Math.abs(cols[i]! - (s / total) * width) <= shares.length)
          )
        },
      ),
    )
  })

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
