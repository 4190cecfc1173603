import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { toolSearchContext } from "../../../test/fixtures/tool-search/load.js"
import { trigramEmbedder } from "../../../test/fixtures/tool-search/trigram-embedder.js"
import { PromptlineError } from "../../errors.js"
import { build } from "../../prompt/builder.js"
import { DeferredTools } from "./deferred-tools.js"
import { type EmbedTexts, embeddingText } from "./hybrid.js"

const tools = build(toolSearchContext()).deferredTools

const names = (matches: { tool: { name: string } }[]) => matches.map((m) => m.tool.name)

describe("hybrid tool search", () => {
  it("embeds the tools once per instance and each query once", async () => {
    const { embed, calls } = trigramEmbedder()
    const deferred = new DeferredTools(tools, { embed })
    await deferred.searchHybrid("take a screenshot of the page")
    await deferred.searchHybrid("merge the pull request")
    expect(calls).toEqual([tools.length, 1, 1])
  })

  it("is deterministic, returns only tools of either ranking, and puts a tool first in both rankings first", async () => {
    const { embed } = trigramEmbedder()
    const deferred = new DeferredTools(tools, { embed })
    const words = ["create", "issue", "page", "screenshot", "branch", "message", "slack", "file", "query", "pod"]
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }), async (ws) => {
        const q = ws.join(" ")
        const once = await deferred.searchHybrid(q, 10)
        expect(names(await new DeferredTools(tools, { embed }).searchHybrid(q, 10))).toEqual(names(once))
        // Every fused result is among the first 50 of the lexical ranking or of the embedding ranking.
        const lexical = new Set(names(deferred.search(q, 10)))
        const vectors = await embed([q, ...tools.map(embeddingText)])
        const cos = (a: number[], b: number[]) =>
          a.reduce((s, x, i) => s + x * b[i]!, 0) / (Math.hypot(...a) * Math.hypot(...b) || 1)
        const bySimilarity = tools
          .map((t, i) => ({ name: t.name, c: cos(vectors[0]!, vectors[i + 1]!), i }))
          .sort((a, b) => b.c - a.c || a.i - b.i)
        const semantic = bySimilarity.slice(0, 50).map((x) => x.name)
        const lexical50 = new Set(names(deferred.search(q, 50)))
        for (const n of names(once)) expect(lexical50.has(n) || semantic.includes(n)).toBe(true)
        if (lexical.size > 0 && names(deferred.search(q, 1))[0] === semantic[0])
          expect(names(once)[0]).toBe(semantic[0])
      }),
      { numRuns: 15 },
    )
  })

  it("moves a tool the embeddings favour up, and keeps an exact tool name first", async () => {
    const target = tools.find((t) => t.name === "mcp__memory__read_graph")!
    // An embedder that finds every query closest to one tool.
    const embed: EmbedTexts = async (texts) =>
      texts.map((t) => (t === embeddingText(target) || texts.length === 1 ? [1, 0] : [0, 1]))
    const deferred = new DeferredTools(tools, { embed })
    const lexicalRank = names(deferred.search("show the graph", 10)).indexOf(target.name)
    const hybridRank = names(await deferred.searchHybrid("show the graph", 10)).indexOf(target.name)
    expect(hybridRank).toBeGreaterThanOrEqual(0)
    expect(lexicalRank === -1 || hybridRank <= lexicalRank).toBe(true)
    expect(names(await deferred.searchHybrid("mcp__github__create_issue", 3))[0]).toBe("mcp__github__create_issue")
  })

  it("searches lexically without an embedding function", async () => {
    const deferred = new DeferredTools(tools)
    expect(names(await deferred.searchHybrid("merge a pull request", 5))).toEqual(
      names(deferred.search("merge a pull request", 5)),
    )
  })

  it("rejects with tool-search-embed when the function fails or answers out of shape, and tries again later", async () => {
    let fail = true
    const flaky: EmbedTexts = async (texts) => {
      if (fail) throw new Error("endpoint down")
      return texts.map(() => [1, 2, 3])
    }
    const deferred = new DeferredTools(tools, { embed: flaky })
    await expect(deferred.searchHybrid("x issue")).rejects.toMatchObject({
      code: "tool-search-embed",
      message: expect.stringContaining("endpoint down"),
    })
    fail = false
    expect(await deferred.searchHybrid("create issue")).toHaveLength(5)
    const short = new DeferredTools(tools, { embed: async (texts) => texts.slice(1).map(() => [1]) })
    await expect(short.searchHybrid("issue")).rejects.toThrow(PromptlineError)
    await expect(short.searchHybrid("issue")).rejects.toThrow(
      `returned ${tools.length - 1} vectors for ${tools.length} texts`,
    )
    const ragged = new DeferredTools(tools, { embed: async (texts) => texts.map((_, i) => (i === 2 ? [1] : [1, 2])) })
    await expect(ragged.searchHybrid("issue")).rejects.toThrow("vector 2 has 1 values where the first has 2")
    const nan = new DeferredTools(tools, { embed: async (texts) => texts.map(() => [Number.NaN, 1]) })
    await expect(nan.searchHybrid("issue")).rejects.toThrow("not a finite number")
  })
})
