import { beforeAll, describe, expect, it } from "vitest"
import type { PromptContext } from "../context/prompt-context.js"
import type { GatherReport } from "../context/report.js"
import { TokenCounter } from "../history/tokens.js"
import { PromptBuilder } from "../prompt/builder.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { diffBuilds } from "./build-diff.js"
import { escapeHtml } from "./html-assets.js"
import { renderHtml } from "./render-html.js"
import { type InspectInput, inspectReport } from "./report.js"
import { withModel } from "./with-model.js"

let counter: TokenCounter
const builder = new PromptBuilder()
beforeAll(async () => {
  counter = await TokenCounter.create()
})
const report = (context: PromptContext, extra: Partial<InspectInput> = {}) =>
  inspectReport({ built: builder.build(context), context, counter, ...extra })

/** The header cells of the table with this class. */
const headers = (html: string, cls: string) =>
  [
    ...(html.match(new RegExp(`<table class="${cls}"><thead><tr>(.*?)</tr></thead>`))?.[1] ?? "").matchAll(
      /<th[^>]*>([^<]*)<\/th>/g,
    ),
  ].map((m) => m[1])

const hostile = '</pre><script>alert("x")</script><img src=x onerror=alert(1)>'

describe("renderHtml", () => {
  it("escapes text that comes from files, servers and the context", () => {
    const context = basicContext({
      instructions: [{ path: "AGENTS.md", convention: "agents-md", scope: "project", text: hostile }],
      mcpServers: [{ name: "evil", tools: [{ name: "t", description: hostile, inputSchema: { type: "object" } }] }],
    })
    const html = renderHtml(report(context))
    expect(html).not.toContain("<script>alert")
    expect(html).not.toContain("<img")
    expect(html).toContain(escapeHtml('<script>alert("x")</script>'))
    expect(html.match(/<script>/g)).toHaveLength(1)
  })

  it("is self-contained: a no-network content policy and no external reference", () => {
    const html = renderHtml(report(basicContext()))
    expect(html).toContain("default-src 'none'")
    expect(html).not.toMatch(/\s(src|href)=/)
    expect(html).not.toMatch(/@import|url\(/)
  })

  it("gives each segment its share and a width proportional to it", () => {
    const r = report(basicContext())
    const html = renderHtml(r)
    const segs = [...html.matchAll(/<div class="seg"[^>]*style="width:([\d.]+)%[^"]*"[^>]*data-share="([\d.e-]+)"/g)]
    expect(segs).toHaveLength(r.segments.length)
    for (const [, width, share] of segs) expect(Number(width)).toBeCloseTo(Number(share) * 100, 3)
  })

  it("puts skills and MCP servers in their own tables, not in the instruction-file columns", () => {
    const gather: GatherReport = {
      instructions: [],
      skills: [
        {
          kind: "skill",
          path: ".agents/skills/release-notes/SKILL.md",
          scope: "project",
          status: "loaded",
          detail: "release-notes",
        },
      ],
      mcpServers: [
        {
          kind: "mcp-server",
          path: "tracker",
          scope: "project",
          status: "loaded",
          convention: "claude",
          detail: "1 tool, 1 resource, 0 resource templates; from .mcp.json",
        },
      ],
    }
    const r = report(basicContext(), { gather })
    const html = renderHtml(r)
    expect(headers(html, "skills")).toEqual(["name", "path", "status", "why", "tokens"])
    expect(headers(html, "servers")).toEqual(["name", "source", "status", "tools", "tokens"])
    const skillRow = html.match(/<tr data-skill="release-notes">(.*?)<\/tr>/)![1]!
    expect(skillRow).toContain('<td class="mono">release-notes</td>')
    expect(skillRow).toMatch(new RegExp(`<td class="num">${r.skills[0]!.tokens}</td>$`))
    const serverRow = html.match(/<tr data-server="tracker">(.*?)<\/tr>/)![1]!
    expect(serverRow).toContain(".mcp.json (claude)")
    expect(serverRow).not.toContain("convention")
    expect(serverRow).toMatch(new RegExp(`<td class="num">1</td><td class="num">${r.mcpServers[0]!.tokens}</td>$`))
  })

  it("groups MCP tools by server, with each server's subtotal", () => {
    const tool = (name: string) => ({ name, description: `Does ${name}.`, inputSchema: { type: "object" } })
    const context = basicContext({
      mcpServers: [
        { name: "tracker", tools: [tool("get_issue"), tool("list_issues")] },
        { name: "files", tools: [tool("read")] },
      ],
    })
    const r = report(context)
    const html = renderHtml(r)
    for (const server of ["tracker", "files"]) {
      const own = r.tools.filter((t) => t.mcp?.server === server)
      const tokens = own.reduce((n, t) => n + t.tokens, 0)
      expect(html).toContain(`data-server="${server}"><h3>MCP server <code>${server}</code>`)
      expect(html).toContain(
        `data-tools="${own.length}" data-tokens="${tokens}">${own.length} tool${own.length === 1 ? "" : "s"} · ${tokens} tokens`,
      )
    }
  })

  it("draws the whole window, each part as wide as its share", () => {
    const r = report(basicContext())
    const html = renderHtml(r)
    const bar = html.match(/<div class="bar window" id="window-bar">(.*?)<\/div>\n/)![1]!
    const segs = [...bar.matchAll(/style="width:([\d.]+)%[^"]*" data-part="([a-z-]+)" data-share="([\d.e-]+)"/g)]
    expect(segs.map((m) => m[2])).toEqual(r.window.parts.map((p) => p.id))
    for (const [, width, , share] of segs) expect(Number(width)).toBeCloseTo(Number(share) * 100, 3)
  })

  it("heads the window once and says what it holds: the prompt alone, or with the conversation given", () => {
    const alone = renderHtml(report(basicContext()))
    expect(alone.match(/Context window/g)).toHaveLength(1)
    expect(alone).toContain("The prompt (no conversation given: <code>--history FILE</code> adds one)")
    const history = [
      { id: "m1", role: "user" as const, ts: 1, content: [{ type: "text" as const, text: "fix the test" }] },
      { id: "m2", role: "assistant" as const, ts: 2, content: [{ type: "text" as const, text: "done" }] },
    ]
    const given = renderHtml(report(basicContext(), { history }))
    expect(given.match(/Context window/g)).toHaveLength(1)
    expect(given).not.toContain("no conversation given")
    expect(given).toMatch(/The prompt and the conversation \(<code>--history<\/code>: 2 messages, [\d,]+ tokens\)/)
  })

  it("lists every warning once, in one list", () => {
    const warning = { level: "warning" as const, code: "rule-invalid", message: "bad front matter", path: "x.mdc" }
    // On a day its model (Claude Sonnet 4.5) was not yet deprecated, so the given warning is the only one.
    const html = renderHtml(report(basicContext({ date: "2026-09-01" }), { diagnostics: [warning] }))
    expect(html).toContain("<h2>Warnings (1)</h2>")
    expect(html.split("[rule-invalid]")).toHaveLength(2)
  })

  it("with a comparison, shows both builds side by side with the changed lines marked", () => {
    const a = report(basicContext())
    const b = report(withModel(basicContext(), "gpt-5"))
    const html = renderHtml(a, { report: b, diff: diffBuilds(a, b) })
    expect(html).toContain('<section id="compare">')
    expect(html).toContain("Compared with gpt-5")
    expect(html).toMatch(/<ins class="add">/)
    expect(html).toMatch(/<del class="rm">/)
    expect(html).toContain('data-status="changed"')
  })
})
