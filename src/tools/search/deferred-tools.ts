import type { EnabledTool } from "../spec.js"
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "./fixed-tools.js"
import { type ToolMatch, ToolSearchIndex } from "./tool-index.js"
import { type ArgumentCheck, ArgumentChecker } from "./validate.js"

/**
 * The deferred tools of a build, ready to be searched and called: a BM25 index over them and an argument
 * checker. Made once per tool list (an agent keeps it while the build's deferred tools stay the same).
 */
export class DeferredTools {
  readonly tools: readonly EnabledTool[]
  readonly #index: ToolSearchIndex
  readonly #checker = new ArgumentChecker()

  constructor(tools: readonly EnabledTool[]) {
    this.tools = tools
    this.#index = new ToolSearchIndex(tools)
  }

  /** The deferred tool with this exact name. */
  get(name: string): EnabledTool | undefined {
    return this.#index.get(name)
  }

  /** The best matches for a query; `limit` is clamped to 1..MAX_SEARCH_LIMIT (default DEFAULT_SEARCH_LIMIT). */
  search(query: string, limit?: number): ToolMatch[] {
    const n = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit ?? DEFAULT_SEARCH_LIMIT)))
    return this.#index.search(query, n)
  }

  /** Checks arguments against a tool's parameter schema. */
  check(tool: EnabledTool, input: unknown): ArgumentCheck {
    return this.#checker.check(tool, input)
  }
}
