import { beforeAll, describe, expect, it } from "vitest"
import type { PromptContext } from "../context/prompt-context.js"
import { TokenCounter } from "../history/tokens.js"
import { PromptBuilder } from "../prompt/builder.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { diffBuilds } from "./build-diff.js"
import { escapeHtml } from "./html-assets.js"
import { renderHtml } from "./render-html.js"
import { inspectReport } from "./report.js"
import { withModel } from "./with-model.js"

let counter: TokenCounter
const builder = new PromptBuilder()
beforeAll(async () => {
  counter = await TokenCounter.create()
})
const report = (context: PromptContext) => inspectReport({ built: builder.build(context), context, counter })

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
