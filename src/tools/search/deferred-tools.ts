import type { EnabledTool } from "../spec.js"
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "./fixed-tools.js"
import { type EmbedTexts, HybridToolSearch } from "./hybrid.js"
import { type ToolMatch, ToolSearchIndex } from "./tool-index.js"
import { type ArgumentCheck, ArgumentChecker } from "./validate.js"

/** How deferred tools are searched besides the lexical index. */
export interface DeferredToolsOptions {
  /** The host's embedding function: `searchHybrid` fuses its ranking with the lexical one. */
  embed?: EmbedTexts
}

/**
 * The deferred tools of a build, ready to be searched and called: a BM25 index over them (and, when the host
 * passes an embedding function, a hybrid search) and an argument checker. Made once per tool list (an agent keeps
 * it while the build's deferred tools stay the same); the index is built on the first search (a request whose
 * model searches nothing pays for none: about 75 ms for 456 tools), the tools are embedded once per instance.
 */
export class DeferredTools {
  readonly tools: readonly EnabledTool[]
  readonly #embed: EmbedTexts | undefined
  #index: ToolSearchIndex | undefined
  #hybrid: HybridToolSearch | undefined
  #byName: Map<string, EnabledTool> | undefined
  readonly #checker = new ArgumentChecker()

  constructor(tools: readonly EnabledTool[], options: DeferredToolsOptions = {}) {
    this.tools = tools
    this.#embed = options.embed
  }

  /** The lexical index, built on first use. */
  get #lexical(): ToolSearchIndex {
    this.#index ??= new ToolSearchIndex(this.tools)
    return this.#index
  }

  /** The deferred tool with this exact name. */
  get(name: string): EnabledTool | undefined {
    this.#byName ??= new Map(this.tools.map((t) => [t.name, t]))
    return this.#byName.get(name)
  }

  /** The best matches for a query; `limit` is clamped to 1..MAX_SEARCH_LIMIT (default DEFAULT_SEARCH_LIMIT). */
  search(query: string, limit?: number): ToolMatch[] {
    return this.#lexical.search(query, clampLimit(limit))
  }

  /**
   * The best matches by the lexical ranking fused with the embedding function's (`options.embed`), or by the
   * lexical ranking alone when there is none; the limit as for `search`. Rejects with a PromptlineError
   * (`tool-search-embed`) when the embedding function fails or answers out of shape.
   */
  async searchHybrid(query: string, limit?: number): Promise<ToolMatch[]> {
    if (!this.#embed) return this.search(query, limit)
    this.#hybrid ??= new HybridToolSearch(this.#lexical, this.tools, this.#embed)
    return this.#hybrid.search(query, clampLimit(limit))
  }

  /** Checks arguments against a tool's parameter schema. */
  check(tool: EnabledTool, input: unknown): ArgumentCheck {
    return this.#checker.check(tool, input)
  }
}

/** A search's limit clamped to 1..MAX_SEARCH_LIMIT (DEFAULT_SEARCH_LIMIT when none is given). */
export function clampLimit(limit: number | undefined): number {
  return Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit ?? DEFAULT_SEARCH_LIMIT)))
}
