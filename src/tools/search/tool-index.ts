import MiniSearch from "minisearch"
import type { EnabledTool } from "../spec.js"

/** One search result: the tool and its score (higher is better). */
export interface ToolMatch {
  tool: EnabledTool
  score: number
}

/** Words that say nothing about what a tool does. */
const STOP_WORDS = new Set(
  (
    "a an and are as at be by can do does for from how i in into is it its me my of on or our please " +
    "should so that the their them then there these this to use using want we what when which with would you your"
  ).split(" "),
)

/** Splits text into words: at every non-alphanumeric character and at camelCase humps. */
export function toolTerms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
}

/**
 * A word reduced to a stem, so "creating", "created" and "creates" meet "create": lower case, then the
 * common English endings cut (a light suffix stripper, not a full stemmer). Stop words give null.
 */
export function stemTerm(word: string): string | null {
  const w = word.toLowerCase()
  if (STOP_WORDS.has(w)) return null
  if (w.length <= 3) return w
  const rules: [RegExp, string][] = [
    [/ies$/, "y"],
    [/(ss|sh|ch|x)es$/, "$1"],
    [/([^s])s$/, "$1"],
    [/ing$/, ""],
    [/ed$/, ""],
    [/e$/, ""],
  ]
  let stem = w
  for (const [pattern, replacement] of rules) {
    const next = stem.replace(pattern, replacement)
    if (next !== stem && next.length >= 3) stem = next
  }
  return stem
}

interface Doc {
  id: number
  name: string
  server: string
  description: string
  params: string
}

/** The text of a tool's parameters: their names and descriptions, nested ones included. */
function parameterText(schema: unknown, depth = 0): string[] {
  if (typeof schema !== "object" || schema === null || depth > 3) return []
  const out: string[] = []
  const props = (schema as { properties?: Record<string, unknown> }).properties
  if (props && typeof props === "object") {
    for (const [name, sub] of Object.entries(props)) {
      out.push(name)
      const description = (sub as { description?: unknown } | null)?.description
      if (typeof description === "string") out.push(description)
      out.push(...parameterText(sub, depth + 1))
    }
  }
  const items = (schema as { items?: unknown }).items
  if (items) out.push(...parameterText(items, depth + 1))
  return out
}

/**
 * A BM25 index (minisearch's BM25+) over deferred tools: their names (the server's own tool name and the
 * server name), descriptions and parameters. Names weigh most, then descriptions. Queries match stems and,
 * for words of five letters or more, prefixes and near misses (one edit per five letters).
 */
export class ToolSearchIndex {
  readonly #tools: readonly EnabledTool[]
  readonly #search: MiniSearch<Doc>
  readonly #byName: Map<string, EnabledTool>

  constructor(tools: readonly EnabledTool[]) {
    this.#tools = tools
    this.#byName = new Map(tools.map((t) => [t.name, t]))
    this.#search = new MiniSearch<Doc>({
      fields: ["name", "server", "description", "params"],
      tokenize: toolTerms,
      processTerm: stemTerm,
      searchOptions: {
        boost: { name: 3, server: 1.5, description: 1, params: 0.5 },
        prefix: (term) => term.length >= 5,
        fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
        weights: { prefix: 0.4, fuzzy: 0.3 },
        combineWith: "OR",
      },
    })
    this.#search.addAll(
      tools.map((t, id) => ({
        id,
        name: t.mcp ? `${t.mcp.tool} ${t.name}` : t.name,
        server: t.mcp?.server ?? "",
        description: t.description,
        params: parameterText(t.parameters).join(" "),
      })),
    )
  }

  /** How many tools the index holds. */
  get size(): number {
    return this.#tools.length
  }

  /** The tool with this exact name, if indexed. */
  get(name: string): EnabledTool | undefined {
    return this.#byName.get(name)
  }

  /** The best matches for a query, best first; ties keep the tools' order. An exact tool name comes first. */
  search(query: string, limit: number): ToolMatch[] {
    const exact = this.#byName.get(query.trim())
    const hits = this.#search
      .search(query)
      .map((r) => ({ tool: this.#tools[r.id as number]!, score: r.score, id: r.id as number }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .map(({ tool, score }) => ({ tool, score }))
    const ranked = exact
      ? [{ tool: exact, score: Number.POSITIVE_INFINITY }, ...hits.filter((h) => h.tool !== exact)]
      : hits
    return ranked.slice(0, Math.max(0, limit))
  }
}
