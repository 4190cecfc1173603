import type MiniSearch from "minisearch"
import { lazyModule } from "../../lazy-module.js"
import type { EnabledTool } from "../spec.js"
import { API_OPERATIONS, JARGON } from "./jargon.js"
import { baseForms, lookUpWord } from "./lexicon.js"
import { analyzeQuery, isIdentifier, type QueryWord } from "./query.js"
import { isStopWord, stemTerm, toolTerms } from "./terms.js"

export { stemTerm, toolTerms } from "./terms.js"

/** One search result: the tool and its score (higher is better). */
export interface ToolMatch {
  tool: EnabledTool
  score: number
}

/** minisearch, required when the first index is built. */
const miniSearch = lazyModule<typeof MiniSearch>("minisearch")

/**
 * The weight of each field of a tool in its score. A description's first sentence (`summary`) and the rest
 * (`details`) are separate fields, so that a long description's notes do not dilute what the tool does (BM25
 * normalizes each field by its own length). `related` holds the lexicon's synonyms of the name's words.
 */
const FIELD_BOOST = { name: 2, server: 1.5, summary: 1, details: 1, params: 0.7, related: 0.6 }

/** How much a tool whose name says another API operation than the query's verbs ask for is scored down. */
const OTHER_OPERATION_PENALTY = 0.2

/** The weight of a query word's prefix matches ("config" → configuration), for stems of five letters or more. */
const PREFIX_WEIGHT = 0.3

/** The weight of a tool-vocabulary word (jargon.ts) next to the query's own word. */
const JARGON_WEIGHT = 0.6

/** The weight of a WordNet synonym next to the query's own word, by the rank of the sense it comes from. */
const SENSE_WEIGHT = [0.4, 0.3, 0.2]

/** The weight of a verb a query verb is a kind of ("erase" → remove). */
const BROADER_WEIGHT = 0.2

/** Most words one query word stands for besides itself. */
const MAX_EXPANSIONS = 8

/** A tool's score is multiplied by the share of the query's content words it matches, to this power. */
const COVERAGE_POWER = 0.5

/** How much a server the query names in part multiplies its tools' scores (times the share of its name's words named). */
const NAMED_SERVER_BOOST = 4

/** How much a server the query names in full (every word of its name) multiplies its tools' scores, less one. */
const FULLY_NAMED_SERVER_BOOST = 10

/** How much the server whose tools' text best matches the query multiplies its tools' scores (others less). */
const SERVER_VOCABULARY_BOOST = 0.3

/** How much each pair of query words a tool's text has side by side multiplies its score (times the count). */
const PAIR_BONUS = 1

interface Doc {
  id: number
  name: string
  server: string
  /** The description's first sentence: what the tool does. */
  summary: string
  /** The rest of the description: notes on how to use it. */
  details: string
  params: string
  /** The lexicon's synonyms of the name's words (their first senses), for queries in other words. */
  related: string
}

/** The text of a tool's parameters: names, descriptions and enum values, nested ones included. */
function parameterText(schema: unknown, depth = 0): string[] {
  if (typeof schema !== "object" || schema === null || depth > 3) return []
  const out: string[] = []
  const node = schema as { properties?: unknown; items?: unknown; enum?: unknown; anyOf?: unknown; oneOf?: unknown }
  if (node.properties && typeof node.properties === "object") {
    for (const [name, sub] of Object.entries(node.properties as Record<string, unknown>)) {
      out.push(name)
      const description = (sub as { description?: unknown } | null)?.description
      if (typeof description === "string") out.push(description)
      out.push(...parameterText(sub, depth + 1))
    }
  }
  if (Array.isArray(node.enum)) out.push(...node.enum.filter((v): v is string => typeof v === "string"))
  for (const list of [node.anyOf, node.oneOf]) {
    if (Array.isArray(list)) for (const s of list) out.push(...parameterText(s, depth + 1))
  }
  if (node.items) out.push(...parameterText(node.items, depth + 1))
  return out
}

/** The stems of a text, stop words and numbers left out. */
function stemsOf(text: string): string[] {
  return toolTerms(text)
    .map(stemTerm)
    .filter((t): t is string => t !== null)
}

/**
 * The words most of a server's tool names share ("playwright" in playwright_click, "kubectl", "slack"): they say
 * which service a tool belongs to, not what it does, so they are indexed with the server's name.
 */
function serviceWords(names: readonly string[]): Set<string> {
  const counts = new Map<string, number>()
  for (const name of names) for (const s of new Set(stemsOf(name))) counts.set(s, (counts.get(s) ?? 0) + 1)
  return new Set([...counts].filter(([, n]) => names.length >= 3 && n >= names.length * 0.6).map(([s]) => s))
}

/** A term to look up, with its weight next to the query word it stands for, and whether prefixes match. */
interface WeightedTerm {
  stem: string
  weight: number
  prefix: boolean
}

/** Options of a minisearch query for one term that is already a stem. */
const ONE_TERM = { tokenize: (t: string) => [t], processTerm: (t: string) => t }

/**
 * A BM25 index (minisearch's BM25+) over deferred tools: each tool's name, its server's name (with the words most
 * of a server's tool names share), its description and its parameters (names, descriptions, enum values). Text
 * and queries go through one stemmer (terms.ts). A query is read into content words (query.ts); each stands for
 * itself, for the tool-vocabulary words of jargon.ts and for its WordNet synonyms in the role it has in the query
 * (lexicon.ts), and counts once, with its best match. Named servers and the server whose vocabulary the query
 * uses rank higher; a tool whose name says another API operation (get, list, create, ...) than the query's verbs
 * ask for ranks a little lower. A question word that asks for an operation ("where" → search) is one of those verbs.
 */
export class ToolSearchIndex {
  readonly #tools: readonly EnabledTool[]
  readonly #search: MiniSearch<Doc>
  readonly #byName: Map<string, EnabledTool>
  /** The stems of each server's name, for queries that name the service. */
  readonly #serverStems: Map<string, string[]>
  /** Each server's tools as one text, to tell which service a query's words belong to. */
  readonly #serverSearch: MiniSearch<{ id: number; text: string }>
  readonly #serverNames: string[]
  /** How many tools use each stem: lexicon words no tool uses are not looked up, and rare words weigh more. */
  readonly #toolsWith = new Map<string, number>()
  /** The tools whose name or description has two stems side by side ("pull request", "directory tree"), by pair. */
  readonly #pairs = new Map<string, number[]>()
  /** The API operations (get, list, create, ...) each tool's name says it does, from its name's verbs. */
  readonly #operations: ReadonlySet<string>[]

  constructor(tools: readonly EnabledTool[]) {
    this.#tools = tools
    this.#byName = new Map(tools.map((t) => [t.name, t]))
    const byServer = new Map<string, string[]>()
    for (const t of tools) if (t.mcp) byServer.set(t.mcp.server, [...(byServer.get(t.mcp.server) ?? []), t.mcp.tool])
    const shared = new Map([...byServer].map(([server, names]) => [server, serviceWords(names)]))
    this.#serverNames = [...byServer.keys()]
    this.#serverStems = new Map(this.#serverNames.map((s) => [s, [...new Set(stemsOf(s))]]))
    this.#search = new (miniSearch())<Doc>({
      fields: ["name", "server", "summary", "details", "params", "related"],
      tokenize: toolTerms,
      processTerm: stemTerm,
    })
    const docs = tools.map((t, id) => {
      const service = shared.get(t.mcp?.server ?? "") ?? new Set<string>()
      const nameWords = toolTerms(t.mcp?.tool ?? t.name).filter((w) => !service.has(stemTerm(w) ?? ""))
      const summary = firstSentence(t.description)
      return {
        id,
        name: nameWords.join(" "),
        server: [t.mcp?.server ?? "", ...service].join(" "),
        summary,
        details: t.description.slice(summary.length),
        params: parameterText(t.parameters).join(" "),
        related: relatedWords(nameWords).join(" "),
      }
    })
    this.#search.addAll(docs)
    this.#operations = docs.map((d) => new Set(toolTerms(d.name).flatMap((w) => operationsOf(w.toLowerCase()))))
    for (const d of docs) {
      for (const text of [d.name, d.summary]) {
        const stems = stemsOf(text)
        for (let i = 1; i < stems.length; i++) {
          const key = `${stems[i - 1]} ${stems[i]}`
          const ids = this.#pairs.get(key) ?? []
          if (ids.at(-1) !== d.id) ids.push(d.id)
          this.#pairs.set(key, ids)
        }
      }
    }
    for (const d of docs) {
      for (const s of new Set(stemsOf(`${d.name} ${d.server} ${d.summary} ${d.details} ${d.params} ${d.related}`)))
        this.#toolsWith.set(s, (this.#toolsWith.get(s) ?? 0) + 1)
    }
    this.#serverSearch = new (miniSearch())<{ id: number; text: string }>({
      fields: ["text"],
      tokenize: toolTerms,
      processTerm: stemTerm,
    })
    this.#serverSearch.addAll(
      this.#serverNames.map((server, id) => ({
        id,
        text: docs
          .filter((d) => tools[d.id]!.mcp?.server === server)
          .map((d) => `${d.name} ${d.server} ${d.summary} ${d.details}`)
          .join(" "),
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

  /** The query word and the words it stands for (jargon, then WordNet senses in its role), each with its weight. */
  #terms(word: QueryWord): WeightedTerm[] {
    const terms = [{ stem: word.stem, weight: 1, prefix: word.stem.length >= 5 && !isStopWord(word.word) }]
    const seen = new Set([word.stem])
    const add = (w: string, weight: number) => {
      const stem = stemTerm(w)
      if (stem === null || seen.has(stem) || !this.#toolsWith.has(stem) || terms.length > MAX_EXPANSIONS) return
      seen.add(stem)
      terms.push({ stem, weight, prefix: false })
    }
    for (const w of jargonOf(word.word)) add(w, JARGON_WEIGHT)
    const entry = lookUpWord(word.word)?.entry
    const senses = entry && word.role ? (entry[word.role] ?? []) : []
    senses.forEach((sense, rank) => {
      for (const w of sense.synonyms) add(w, SENSE_WEIGHT[rank] ?? 0)
    })
    for (const w of senses[0]?.broader ?? []) add(w, BROADER_WEIGHT)
    return terms
  }

  /** The tools one term matches (ids) and their scores. */
  #termScores(term: WeightedTerm): { ids: number[]; scores: number[] } {
    const hits = this.#search.search(term.stem, {
      ...ONE_TERM,
      boost: FIELD_BOOST,
      prefix: term.prefix,
      weights: { prefix: PREFIX_WEIGHT, fuzzy: 0 },
    })
    return { ids: hits.map((h) => h.id as number), scores: hits.map((h) => h.score) }
  }

  /** How much a query word says about which tool is meant: its inverse document frequency among the tools. */
  #specificity(stem: string): number {
    return Math.log(1 + this.#tools.length / (1 + (this.#toolsWith.get(stem) ?? 0)))
  }

  /** Each server's share of the best server's score for the query's words (its tools' text as one document). */
  #serverVocabulary(words: readonly QueryWord[]): Map<string, number> {
    const hits = this.#serverSearch.search(words.map((w) => w.stem).join(" "), {
      tokenize: (t) => t.split(" "),
      processTerm: (t) => t,
    })
    const top = hits[0]?.score ?? 1
    return new Map(hits.map((h) => [this.#serverNames[h.id as number]!, h.score / top]))
  }

  /**
   * The best matches for a query, best first; ties keep the tools' order. An exact tool name comes first. Each
   * content word of the query adds its best match among itself and the words it stands for (these at lower
   * weights); a tool matching fewer of the words, or only the common ones, ranks lower, and one whose name or
   * first sentence has two of them side by side ranks higher. A query that names a server (github, chrome
   * devtools; "mongo" for mongodb, a word the lexicon does not know) ranks that server's tools higher, fully
   * named servers well above half named ones, and the words of a fully named server then count only for that. A
   * tool whose name's verb is an API operation none of the query's verbs stands for ("update" for "open an
   * issue") is scored down.
   */
  search(query: string, limit: number): ToolMatch[] {
    const exact = this.#byName.get(query.trim())
    // Identifiers (ids, hashes, versions) count only when a tool's text has them too ("k8s", "oauth2").
    const words = analyzeQuery(query).filter((w) => !isIdentifier(w.word) || this.#toolsWith.has(w.stem))
    const stems = new Set(words.map((w) => w.stem))
    // Words the lexicon does not know may be short or long forms of a server's name ("mongo"); others may not.
    const coined = new Set(words.filter((w) => lookUpWord(w.word) === undefined).map((w) => w.stem))
    const named = new Map<string, number>()
    const fullyNamed = new Set<string>()
    const stemList = [...stems]
    for (const [server, parts] of this.#serverStems) {
      const naming = parts.map((p) => stemList.filter((s) => namesPart(s, p, coined.has(s))))
      const covered = naming.filter((n) => n.length > 0).length
      if (covered > 0) named.set(server, covered / parts.length)
      if (covered === parts.length) for (const n of naming) for (const s of n) fullyNamed.add(s)
    }
    const rest = words.filter((w) => !fullyNamed.has(w.stem))
    const content = rest.length > 0 ? rest : words
    // Scores by tool id, in arrays: a search touches a few hundred tools and allocates little.
    const n = this.#tools.length
    const total = new Float64Array(n)
    const matched = new Float64Array(n)
    const best = new Float64Array(n)
    const touched: number[] = []
    const credit = new Float64Array(n)
    const memo = new Map<string, { ids: number[]; scores: number[] }>()
    const weights = content.map((w) => this.#specificity(w.stem))
    const allWeight = weights.reduce((a, b) => a + b, 0)
    for (const [k, word] of content.entries()) {
      const mine: number[] = []
      for (const term of this.#terms(word)) {
        const key = `${term.stem}${term.prefix ? "*" : ""}`
        let found = memo.get(key)
        if (!found) {
          found = this.#termScores(term)
          memo.set(key, found)
        }
        for (let i = 0; i < found.ids.length; i++) {
          const id = found.ids[i]!
          const s = found.scores[i]! * term.weight
          if (best[id] === 0) mine.push(id)
          if (s > best[id]!) best[id] = s
          if (term.weight > credit[id]!) credit[id] = term.weight
        }
      }
      for (const id of mine) {
        if (matched[id] === 0) touched.push(id)
        total[id]! += best[id]!
        matched[id]! += weights[k]! * credit[id]!
        best[id] = 0
        credit[id] = 0
      }
    }
    // Two query words side by side that a tool's text has side by side too.
    const pairs = new Float64Array(n)
    for (let k = 1; k < content.length; k++)
      for (const id of this.#pairs.get(`${content[k - 1]!.stem} ${content[k]!.stem}`) ?? []) pairs[id]!++
    const asked = new Set(content.filter((w) => w.role === "v").flatMap((w) => operationsOf(w.word)))
    const vocabulary = content.length > 0 ? this.#serverVocabulary(content) : new Map<string, number>()
    const hits = touched
      .map((id) => {
        const server = this.#tools[id]!.mcp?.server ?? ""
        const coverage = (matched[id]! / allWeight) ** COVERAGE_POWER
        const service =
          (1 + (named.get(server) === 1 ? FULLY_NAMED_SERVER_BOOST : NAMED_SERVER_BOOST * (named.get(server) ?? 0))) *
          (1 + SERVER_VOCABULARY_BOOST * (vocabulary.get(server) ?? 0))
        const does = this.#operations[id]!
        const otherOperation = asked.size > 0 && does.size > 0 && !sharesAny(does, asked)
        return {
          id,
          score:
            total[id]! *
            coverage *
            service *
            (1 + PAIR_BONUS * pairs[id]!) *
            (otherOperation ? 1 - OTHER_OPERATION_PENALTY : 1),
        }
      })
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .map(({ id, score }) => ({ tool: this.#tools[id]!, score }))
    const ranked = exact
      ? [{ tool: exact, score: Number.POSITIVE_INFINITY }, ...hits.filter((h) => h.tool !== exact)]
      : hits
    return ranked.slice(0, Math.max(0, limit))
  }
}

/** A description's first sentence: what the tool does, before the notes on how to use it and other tools. */
function firstSentence(text: string): string {
  return /^[\s\S]*?[.!?\n](?=\s|$)/.exec(text)?.[0] ?? text
}

/** The tool-vocabulary words of a query word (jargon.ts): of the word as written, else of its base form. */
function jargonOf(word: string): readonly string[] {
  for (const form of baseForms(word)) {
    const found = JARGON.get(form)
    if (found) return found
  }
  return []
}

/** The API operations a word names: itself when it is one ("list"), else those it stands for ("remove" → delete). */
function operationsOf(word: string): string[] {
  for (const form of baseForms(word)) {
    if (API_OPERATIONS.has(form)) return [form]
    const found = JARGON.get(form)?.filter((w) => API_OPERATIONS.has(w))
    if (found && found.length > 0) return found
  }
  return []
}

/**
 * Whether a query stem names a part of a server's name: the same stem, or (both five letters or more) one is the
 * start of the other ("mongo" for mongodb, "postgresql" for postgres).
 */
function namesPart(stem: string, part: string, coined: boolean): boolean {
  if (stem === part) return true
  if (!coined || Math.min(stem.length, part.length) < 5) return false
  return part.startsWith(stem) || stem.startsWith(part)
}

/** The synonyms of the first senses of a tool name's words, the API operations' verbs left out (jargon.ts has those). */
function relatedWords(nameWords: readonly string[]): string[] {
  const out: string[] = []
  for (const word of nameWords) {
    const w = word.toLowerCase()
    if (operationsOf(w).length > 0) continue
    const entry = lookUpWord(w)?.entry
    for (const role of ["v", "n"] as const)
      for (const sense of entry?.[role]?.slice(0, 1) ?? []) out.push(...sense.synonyms)
  }
  return out
}

/** Whether two sets share a member. */
function sharesAny(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const x of a) if (b.has(x)) return true
  return false
}
