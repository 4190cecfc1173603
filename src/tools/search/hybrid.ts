import { PromptlineError } from "../../errors.js"
import type { EnabledTool } from "../spec.js"
import type { ToolMatch, ToolSearchIndex } from "./tool-index.js"

/**
 * An embedding function the host passes for hybrid tool search: one vector per text, in order, all of one length
 * (e.g. its provider's embedding endpoint). promptline calls it once for the tools of an index and once per query.
 */
export type EmbedTexts = (texts: string[]) => Promise<number[][]>

/** How many results of each ranking take part in the fusion. */
const FUSION_DEPTH = 50

/** Reciprocal rank fusion's constant: a result at rank r adds 1 / (RRF_K + r). */
const RRF_K = 60

/** The text of a tool that is embedded: its name, its server and its description. */
export function embeddingText(tool: EnabledTool): string {
  const server = tool.mcp ? ` (MCP server ${tool.mcp.server})` : ""
  return `${tool.mcp?.tool ?? tool.name}${server}: ${tool.description.trim()}`
}

/** The vectors `embed` gave for `count` texts, checked and scaled to length 1. */
async function embedChecked(embed: EmbedTexts, texts: string[]): Promise<Float64Array[]> {
  let vectors: unknown
  try {
    vectors = await embed(texts)
  } catch (cause) {
    throw new PromptlineError(
      "tool-search-embed",
      `the embedding function failed: ${(cause as Error)?.message ?? String(cause)}`,
      {
        cause,
      },
    )
  }
  if (!Array.isArray(vectors) || vectors.length !== texts.length)
    throw new PromptlineError(
      "tool-search-embed",
      `the embedding function returned ${Array.isArray(vectors) ? vectors.length : "no list of"} vectors for ${texts.length} texts`,
    )
  const length = (vectors[0] as unknown[] | undefined)?.length ?? 0
  return vectors.map((v, i) => {
    if (!Array.isArray(v) || v.length !== length || length === 0)
      throw new PromptlineError(
        "tool-search-embed",
        `the embedding function's vector ${i} has ${Array.isArray(v) ? v.length : "no"} values where the first has ${length}`,
      )
    if (!v.every((x) => typeof x === "number" && Number.isFinite(x)))
      throw new PromptlineError(
        "tool-search-embed",
        `the embedding function's vector ${i} holds a value that is not a finite number`,
      )
    const norm = Math.sqrt(v.reduce((sum: number, x: number) => sum + x * x, 0)) || 1
    return Float64Array.from(v, (x) => x / norm)
  })
}

/**
 * Hybrid tool search: the lexical ranking of a ToolSearchIndex fused with the ranking by cosine similarity of
 * embeddings from the host's function (reciprocal rank fusion over the first 50 of each). The tools are embedded
 * once, on the first search; each search embeds its query. Ties keep the tools' order.
 */
export class HybridToolSearch {
  readonly #index: ToolSearchIndex
  readonly #tools: readonly EnabledTool[]
  readonly #embed: EmbedTexts
  #toolVectors: Promise<Float64Array[]> | undefined

  constructor(index: ToolSearchIndex, tools: readonly EnabledTool[], embed: EmbedTexts) {
    this.#index = index
    this.#tools = tools
    this.#embed = embed
  }

  /** The tools' vectors, embedded on first use; a failed attempt is tried again on the next search. */
  #vectors(): Promise<Float64Array[]> {
    this.#toolVectors ??= embedChecked(this.#embed, this.#tools.map(embeddingText)).catch((error: unknown) => {
      this.#toolVectors = undefined
      throw error
    })
    return this.#toolVectors
  }

  /** The best matches for a query by both rankings, best first; an exact tool name comes first. */
  async search(query: string, limit: number): Promise<ToolMatch[]> {
    const lexical = this.#index.search(query, FUSION_DEPTH)
    const exact = lexical[0]?.score === Number.POSITIVE_INFINITY ? lexical[0] : undefined
    const tools = await this.#vectors()
    const [q] = await embedChecked(this.#embed, [query])
    if (tools.length > 0 && q!.length !== tools[0]!.length)
      throw new PromptlineError(
        "tool-search-embed",
        `the embedding function gave the query ${q!.length} values and the tools ${tools[0]!.length}`,
      )
    const order = new Map(this.#tools.map((t, i) => [t, i]))
    const similar = tools
      .map((v, i) => ({ i, cos: v.reduce((sum, x, d) => sum + x * q![d]!, 0) }))
      .sort((a, b) => b.cos - a.cos || a.i - b.i)
      .slice(0, FUSION_DEPTH)
    const fused = new Map<number, number>()
    const add = (i: number, rank: number) => fused.set(i, (fused.get(i) ?? 0) + 1 / (RRF_K + rank + 1))
    for (const [rank, m] of lexical.entries()) add(order.get(m.tool)!, rank)
    for (const [rank, { i }] of similar.entries()) add(i, rank)
    const ranked = [...fused]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .map(([i, score]) => ({ tool: this.#tools[i]!, score }))
    const out = exact ? [exact, ...ranked.filter((m) => m.tool !== exact.tool)] : ranked
    return out.slice(0, Math.max(0, limit))
  }
}
