import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT, MODEL_CATALOG } from "./catalog.js"
import { modelConfigSnippet, suggestModels } from "./suggest.js"
import type { ModelInfo, TokenizerFamily } from "./types.js"

/** What `resolveModel` found: the model, whether the catalog (or the user) knew it, and why. */
export interface ResolvedModel {
  model: ModelInfo
  /** False when the id matched nothing and the model is a guessed default. */
  known: boolean
  diagnostics: Diagnostic[]
}

/** Options of `resolveModel`. */
export interface ResolveOptions {
  /** Who serves the model (e.g. `openrouter`, `bedrock`, `ollama`); overrides the row's provider. */
  provider?: string
  /** User additions and overrides; they win over catalog rows with the same id or alias. */
  models?: readonly ModelInfo[]
}

/** One rewriting step of the lookup, in the order they are tried. */
interface Rule {
  name: string
  apply: (id: string) => string
}

const LOCAL_PROVIDERS = new Set(["ollama", "lmstudio", "llamacpp", "llama.cpp", "vllm"])

/** Hosted routers whose name may lead a model id (`together/qwen/qwen3-coder`, as LiteLLM writes them). */
const ROUTERS = new Set(["openrouter", "together", "together_ai", "fireworks", "fireworks_ai", "groq", "deepinfra"])

/**
 * True when a row of the local catalog is served by a hosted provider instead: the id is router-qualified
 * (`qwen/qwen3-coder`) or has no Ollama tag, and whoever serves it is known and not a local server. The
 * Ollama `name:tag` form stays local with any provider (an OpenAI-compatible local server keeps the tag).
 */
function hostedLocalRow(row: ModelInfo, given: string, served: string | undefined): boolean {
  if (!row.local || served === undefined || LOCAL_PROVIDERS.has(served)) return false
  return given.includes("/") || !given.includes(":")
}

/**
 * The rewriting rules, applied one after another; after each, the rewritten id is looked up again.
 * 1. routed: `vendor/model` as OpenRouter writes it, and its `:free`/`:thinking`/... variants.
 * 2. cloud: Bedrock (`us.anthropic.claude-x-v1:0`) and Vertex (`claude-x@20250514`) forms.
 * 3. dotted: Claude versions written with a dot (`claude-sonnet-4.5`).
 * 4. suffix: `[1m]` and `-latest`.
 * 5. snapshot: a trailing date (`-20250929`, `-2024-08-06`).
 */
const RULES: readonly Rule[] = [
  {
    name: "routed form",
    apply: (id) =>
      id.slice(id.lastIndexOf("/") + 1).replace(/:(free|beta|thinking|online|nitro|floor|extended|exacto)$/, ""),
  },
  {
    name: "cloud form",
    apply: (id) =>
      id
        .replace(/^(?:(?:us|eu|apac|global|jp|au)\.)?anthropic\./, "")
        .replace(/-v\d+(?::\d+)?$/, "")
        .replace(/@(\d{8})$/, "-$1")
        .replace(/@default$/, ""),
  },
  { name: "dotted version", apply: (id) => id.replace(/^(claude-[a-z]+-\d+)\.(\d+)/, "$1-$2") },
  { name: "suffix", apply: (id) => id.replace(/\[1m\]$/i, "").replace(/-latest$/, "") },
  { name: "dated snapshot", apply: (id) => id.replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/, "") },
]

function findRow(rows: readonly ModelInfo[], id: string): ModelInfo | undefined {
  const lower = id.toLowerCase()
  return (
    rows.find((m) => m.id === id) ??
    rows.find((m) => m.aliases?.includes(id)) ??
    rows.find((m) => m.id.toLowerCase() === lower || m.aliases?.some((a) => a.toLowerCase() === lower))
  )
}

/** Looks an id up in the user rows first, then the catalog. */
function lookup(id: string, userRows: readonly ModelInfo[]): ModelInfo | undefined {
  return findRow(userRows, id) ?? findRow(MODEL_CATALOG, id)
}

/** Ollama `name:tag` forms: the tag's first part (`30b-a3b-q4_K_M` → `30b`), then the bare name (`gpt-oss`). */
function lookupTagged(id: string, userRows: readonly ModelInfo[]): { row: ModelInfo; rule: string } | undefined {
  const colon = id.indexOf(":")
  if (colon === 0) return undefined
  const name = colon > 0 ? id.slice(0, colon) : id
  const tag = colon > 0 ? id.slice(colon + 1) : ""
  const head = tag.split("-")[0]
  if (head && head !== tag) {
    const row = lookup(`${name}:${head}`, userRows)
    if (row) return { row, rule: "tag" }
  }
  const rows = [...userRows, ...MODEL_CATALOG]
  const byName = rows.find((m) => m.id === name || m.id.startsWith(`${name}:`))
  return byName ? { row: byName, rule: "tag" } : undefined
}

/** The longest known id that the given id extends (`gpt-4o-mini-search-preview` → `gpt-4o-mini`). */
function lookupPrefix(id: string, userRows: readonly ModelInfo[]): ModelInfo | undefined {
  let best: { row: ModelInfo; length: number } | undefined
  for (const row of [...userRows, ...MODEL_CATALOG]) {
    for (const name of [row.id, ...(row.aliases ?? [])]) {
      if (id.length > name.length && id.startsWith(name) && /[-.:]/.test(id[name.length]!)) {
        if (!best || name.length > best.length) best = { row, length: name.length }
      }
    }
  }
  return best?.row
}

/**
 * Finds the ModelInfo for an id: exact id, then aliases, then the rewriting rules above, then
 * Ollama tags, then the longest known prefix. An unknown id gets a 128k default with the family,
 * tokenizer and provider guessed, and a warning.
 */
export function resolveModel(id: string, options: ResolveOptions = {}): ResolvedModel {
  const userRows = options.models ?? []
  const given = id.trim()
  const finish = (row: ModelInfo, rule?: string, level: "info" | "warning" = "info"): ResolvedModel => {
    const model: ModelInfo = { ...row }
    if (row.id !== given) {
      model.id = given
      model.canonicalId = row.id
    }
    if (options.provider && options.provider !== row.provider) {
      model.provider = options.provider
      // Deprecation dates are the row's provider's own; a router or cloud that serves it keeps its own schedule.
      delete model.lifecycle
    }
    const served = options.provider ?? providerOf(given)
    const hosted = hostedLocalRow(row, given, served)
    if (hosted) {
      // The same weights behind a hosted router: its family and window, not a local model's prompt.
      delete model.local
      model.provider = served!
    }
    const note = hosted ? `; served by ${served}, so not a local model` : ""
    const diagnostics = rule
      ? [diagnostic(level, "model-resolved", `model "${given}" resolved to catalog model "${row.id}" (${rule})${note}`)]
      : []
    return { model, known: true, diagnostics }
  }

  const direct = lookup(given, userRows)
  if (direct) return finish(direct)

  let form = given
  for (const rule of RULES) {
    const next = rule.apply(form)
    if (next === form) continue
    form = next
    const row = lookup(form, userRows)
    if (row) return finish(row, rule.name)
  }
  const tagged = lookupTagged(form, userRows)
  if (tagged) return finish(tagged.row, tagged.rule)
  const prefixed = lookupPrefix(form, userRows)
  if (prefixed) return finish(prefixed, "longest known prefix; limits and prices may differ", "warning")

  const provider = options.provider ?? providerOf(given) ?? UNKNOWN_PROVIDER
  const local = LOCAL_PROVIDERS.has(provider)
  const model: ModelInfo = {
    id: given,
    provider,
    family: familyOf(given),
    contextWindow: DEFAULT_CONTEXT_WINDOW,
    maxOutput: DEFAULT_MAX_OUTPUT,
    tokenizer: tokenizerOf(given),
    capabilities: { nativeTools: !local, images: false, thinking: false },
    source: "default",
  }
  if (local) model.local = true
  return {
    model,
    known: false,
    diagnostics: [diagnostic("warning", "model-unknown", unknownModelMessage(given, provider, userRows))],
  }
}

/** The provider of a model whose id names none and that nobody named: the config row leaves it to the user. */
export const UNKNOWN_PROVIDER = "unknown"

/** What the suggested config row says when the provider is unknown: the user's to fill in. */
const FILL_IN_PROVIDER = "FILL IN: who serves it (anthropic, openai, openrouter, ollama, ...)"

/** The warning for an unknown id: what is assumed, the closest catalog ids, and the config entry that adds it. */
function unknownModelMessage(given: string, provider: string, userRows: readonly ModelInfo[]): string {
  const close = suggestModels(given, [...userRows, ...MODEL_CATALOG])
  const mean = close.length > 0 ? ` Did you mean ${close.map((c) => `"${c}"`).join(", ")}?` : ""
  const window = DEFAULT_CONTEXT_WINDOW.toLocaleString("en-US")
  // The provider in the row is the one given, or the one the id names; otherwise the user fills it in.
  const unknown = provider === UNKNOWN_PROVIDER
  const fill = unknown ? " (its id does not say who serves it: fill in the provider)" : ""
  return (
    `model "${given}" is not in the catalog; assuming a ${window}-token window.${mean} ` +
    `To set its limits, add it to promptline.config.json (or the models option)${fill}: ${modelConfigSnippet(given, unknown ? FILL_IN_PROVIDER : provider)}`
  )
}

/** Guesses the model family from an id: claude, gpt, o-series, gemini, deepseek, grok, mistral, qwen, llama, ... */
export function familyOf(id: string): string {
  const name = id.slice(id.lastIndexOf("/") + 1).toLowerCase()
  const rules: [RegExp, string][] = [
    [/claude/, "claude"],
    [/gpt-oss/, "gpt-oss"],
    [/^(gpt|chatgpt|codex)/, "gpt"],
    [/^o\d/, "o-series"],
    [/gemini/, "gemini"],
    [/gemma/, "gemma"],
    [/deepseek/, "deepseek"],
    [/grok/, "grok"],
    [/mistral|codestral|devstral|magistral|ministral|pixtral/, "mistral"],
    [/qwen|qwq/, "qwen"],
    [/llama/, "llama"],
    [/phi/, "phi"],
    [/glm/, "glm"],
    [/kimi/, "kimi"],
  ]
  return rules.find(([re]) => re.test(name))?.[1] ?? "unknown"
}

/** Guesses the tokenizer family from an id. */
export function tokenizerOf(id: string): TokenizerFamily {
  const name = id.slice(id.lastIndexOf("/") + 1).toLowerCase()
  if (/^(gpt-4-|gpt-4$|gpt-3\.5)/.test(name) && !/^gpt-4\.|^gpt-4o/.test(name)) return "cl100k"
  if (/^(gpt|chatgpt|codex|o\d)|gpt-oss/.test(name)) return "o200k"
  if (/claude/.test(name)) return "claude"
  if (/gemini|gemma/.test(name)) return "gemini"
  return "estimate"
}

/**
 * Guesses who serves a model from the form of its id: `router/vendor/model` → that router (a known one),
 * `vendor/model` → openrouter, Bedrock ids →
 * bedrock, `name:tag` → ollama, otherwise the vendor of the family. Undefined when nothing fits.
 */
export function providerOf(id: string): string | undefined {
  const name = id.trim()
  if (/^(?:(?:us|eu|apac|global|jp|au)\.)?anthropic\.claude.*-v\d+(?::\d+)?$/.test(name)) return "bedrock"
  const segments = name.split("/")
  if (segments.length > 2 && ROUTERS.has(segments[0]!.toLowerCase())) return segments[0]!.toLowerCase()
  if (name.includes("/")) return "openrouter"
  if (name.includes(":")) return "ollama"
  const byFamily: Record<string, string> = {
    claude: "anthropic",
    gpt: "openai",
    "o-series": "openai",
    gemini: "gemini",
    deepseek: "deepseek",
    grok: "xai",
    mistral: "mistral",
    qwen: "qwen",
  }
  return byFamily[familyOf(name)]
}
