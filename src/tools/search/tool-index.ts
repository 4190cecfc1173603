import type MiniSearch from "minisearch"
import { lazyModule } from "../../lazy-module.js"
import type { EnabledTool } from "../spec.js"

/** One search result: the tool and its score (higher is better). */
export interface ToolMatch {
  tool: EnabledTool
  score: number
}

/** minisearch, required when the first index is built. */
const miniSearch = lazyModule<typeof MiniSearch>("minisearch")

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
  // "running" → "runn" → "run"; "logging" → "log" (a doubled last consonant after a cut ending).
  if (stem !== w && /([^aeiouls])\1$/.test(stem)) stem = stem.slice(0, -1)
  return stem
}

/**
 * Everyday words for what tools do, and the words tool descriptions tend to use for the same thing. A query
 * word adds its related words at a lower weight, so "file a bug" also looks for "create issue". General task
 * vocabulary (software, files, browsers, messaging, maps), not the words of any one server.
 */
const RELATED: Readonly<Record<string, string>> = {
  bug: "issue",
  ticket: "issue",
  report: "issue create",
  pr: "pull request",
  mr: "merge request",
  repo: "repository",
  project: "repository",
  folder: "directory",
  dir: "directory",
  remove: "delete",
  erase: "delete",
  drop: "delete",
  forget: "delete",
  make: "create",
  start: "create",
  add: "create",
  open: "create navigate",
  submit: "create",
  show: "get list read",
  fetch: "get read",
  view: "get read",
  display: "get",
  look: "search find",
  find: "search",
  which: "list",
  change: "update edit",
  modify: "update edit",
  set: "update",
  rename: "move",
  relocate: "move",
  go: "navigate",
  visit: "navigate",
  load: "navigate read",
  site: "navigate url",
  url: "navigate",
  press: "click key",
  tap: "click",
  hit: "key press",
  screenshot: "screenshot",
  javascript: "evaluate code",
  script: "evaluate",
  shut: "close",
  quit: "close",
  remember: "entity observation memory",
  note: "observation",
  fact: "observation",
  recall: "search node",
  post: "message",
  tell: "message post",
  say: "message",
  reply: "thread reply",
  answer: "reply",
  coordinate: "geocode",
  latitude: "geocode",
  address: "geocode",
  route: "directions",
  drive: "directions distance",
  walk: "directions",
  height: "elevation",
  high: "elevation",
  sea: "elevation",
  near: "place search",
  restaurant: "place",
  shop: "place",
  account: "user",
  people: "user",
  person: "user",
  approve: "review",
  approved: "review",
  space: "size",
  permitted: "allowed",
  allowed: "allowed",
  link: "relation",
  picture: "image",
  photo: "image",
  png: "image media",
  jpg: "image media",
  txt: "text",
  capture: "screenshot",
  toggle: "toggle",
  switch: "toggle",
  turn: "toggle",
  fake: "simulated",
  slow: "long running",
  car: "directions driving",
  dump: "read graph",
  entry: "entity node",
  stored: "memory",
  web: "search",
  internet: "web search",
}

/** The weight of a related word next to a word of the query itself. */
const RELATED_WEIGHT = 0.5

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
 * for words of five letters or more, prefixes.
 */
export class ToolSearchIndex {
  readonly #tools: readonly EnabledTool[]
  readonly #search: MiniSearch<Doc>
  readonly #byName: Map<string, EnabledTool>
  /** The stems of each server's name, for queries that name the service. */
  readonly #servers: Map<string, Set<string>>

  constructor(tools: readonly EnabledTool[]) {
    this.#tools = tools
    this.#byName = new Map(tools.map((t) => [t.name, t]))
    this.#servers = new Map()
    for (const t of tools) {
      if (!t.mcp || this.#servers.has(t.mcp.server)) continue
      const stems = toolTerms(t.mcp.server).map(stemTerm)
      this.#servers.set(t.mcp.server, new Set(stems.filter((x): x is string => x !== null)))
    }
    this.#search = new (miniSearch())<Doc>({
      fields: ["name", "server", "description", "params"],
      tokenize: toolTerms,
      processTerm: stemTerm,
      searchOptions: {
        boost: { name: 3, server: 1.5, description: 1, params: 0.5 },
        prefix: (term) => term.length >= 5,
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

  /**
   * The best matches for a query, best first; ties keep the tools' order. An exact tool name comes first. Words
   * related to the query's words count at half weight; a query that names a server (github, slack) ranks that
   * server's tools higher.
   */
  search(query: string, limit: number): ToolMatch[] {
    const exact = this.#byName.get(query.trim())
    const own = toolTerms(query)
      .map(stemTerm)
      .filter((t): t is string => t !== null)
    const related = own.flatMap((t) => (Object.hasOwn(RELATED, t) ? RELATED[t]!.split(" ") : []))
    const extra = related.filter((t) => !own.includes(t))
    const terms = [...own, ...extra]
    // A server is named when every word of its name is in the query ("github", "google maps").
    const named = new Set(
      [...this.#servers].filter(([, stems]) => [...stems].every((t) => own.includes(t))).map(([s]) => s),
    )
    const hits = this.#search
      .search(terms.join(" "), {
        boostTerm: (_term, i) => (i < own.length ? 1 : RELATED_WEIGHT),
        // Related words match exactly; prefixes are for the words of the query. No near misses: the model
        // writes the query and spells it right, and fuzzy matching costs more than the rest of the search.
        prefix: (term, i) => i < own.length && term.length >= 5,
        ...(named.size > 0
          ? { boostDocument: (id: unknown) => (named.has(this.#tools[id as number]?.mcp?.server ?? "") ? 2 : 1) }
          : {}),
      })
      .map((r) => ({ tool: this.#tools[r.id as number]!, score: r.score, id: r.id as number }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .map(({ tool, score }) => ({ tool, score }))
    const ranked = exact
      ? [{ tool: exact, score: Number.POSITIVE_INFINITY }, ...hits.filter((h) => h.tool !== exact)]
      : hits
    return ranked.slice(0, Math.max(0, limit))
  }
}
