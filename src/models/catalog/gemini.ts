import type { CacheRules, ModelInfo, ThinkingRules } from "../types.js"

// Google Gemini API: numbers checked 2026-11-29 against ai.google.dev model and pricing pages.
// Gemini caches implicitly (no breakpoints); explicit context caches are a separate API.
// Gemini 4 Argon and Carbon are at introductory prices through 2026-11-30 ($4 / $20 / $0.20
// cached from 2026-12-01); Gemini 3.8 Flash through 2026-12-31 ($1.50 / $7.50 from 2027-01-01).
// Thinking rules (2026-12-01): 2.5 Pro takes a budget of 128–32,768 and cannot turn thinking off; 2.5 Flash
// 0–24,576; 2.5 Flash-Lite 512–24,576 or 0; Gemini 3 Pro the levels LOW and HIGH; Gemini 3 Flash MINIMAL
// to HIGH (Gemini thinking guide, Vertex AI thinking guide, and the SDKs' level tables in the stored docs).

const MODELS = "https://ai.google.dev/gemini-api/docs/models"
const PRICING = "https://ai.google.dev/gemini-api/docs/pricing"
const CHECKED = "2026-11-29"

// End of life: the Gemini API's deprecations page (its shutdown dates; Vertex AI keeps its own schedule).
const DEPRECATIONS = "https://ai.google.dev/gemini-api/docs/deprecations"
const LIFECYCLE_CHECKED = "2026-12-03"
const NOVEMBER_COPY =
  "Shutdown and replacement as the page gave them on 2026-11-10 (quoted by aideprecations.com; the stored copies of the page are older and said June 2026 at the earliest). Vertex AI retired it on 2026-10-20."

/** Gemini 2.5: a token budget. */
const budget = (minBudget: number, maxBudget: number, canDisable: boolean): ThinkingRules => ({
  control: "budget",
  canDisable,
  minBudget,
  maxBudget,
})
/** Gemini 3: a thinking level; none of them can turn thinking off. */
const levels = (...efforts: ThinkingRules["efforts"] & object): ThinkingRules => ({
  control: "level",
  canDisable: false,
  efforts,
})
const UNCHECKED_LEVELS = "Thinking levels not found in the stored docs; requests are sent as asked."

const implicit = (minTokens: number): CacheRules => ({ minTokens, maxBreakpoints: 0, ttls: ["5m"] })
const caps = { nativeTools: true, images: true, thinking: true }

function gemini(id: string, input: number, output: number, cacheRead: number, minCache = 4096): ModelInfo {
  return {
    id,
    provider: "gemini",
    family: "gemini",
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    tokenizer: "gemini",
    capabilities: caps,
    cache: implicit(minCache),
    prices: { input, output, cacheRead },
    source: PRICING,
    checked: CHECKED,
  }
}

/** The Gemini models (Gemini 4 first, then older models still served). */
export const geminiModels: ModelInfo[] = [
  { ...gemini("gemini-4-argon", 2, 10, 0.1), source: `${MODELS}/gemini-4-argon`, note: UNCHECKED_LEVELS },
  { ...gemini("gemini-4-carbon", 2, 10, 0.1), note: UNCHECKED_LEVELS },
  { ...gemini("gemini-4-neon", 3, 15, 0.15), note: UNCHECKED_LEVELS },
  { ...gemini("gemini-4-hydrogen", 1.5, 7.5, 0.075), note: UNCHECKED_LEVELS },
  {
    ...gemini("gemini-3.8-flash", 0.75, 3.75, 0.075),
    // Vertex AI thinking guide: LOW, MEDIUM, HIGH (default MEDIUM); MINIMAL is not listed.
    thinking: levels("low", "medium", "high"),
    checked: "2026-12-01",
  },
  {
    ...gemini("gemini-3.1-pro-preview", 2, 12, 0.2),
    aliases: ["gemini-3.1-pro"],
    prices: {
      input: 2,
      output: 12,
      cacheRead: 0.2,
      longContext: { above: 200_000, input: 4, output: 18, cacheRead: 0.4 },
    },
    note: UNCHECKED_LEVELS,
  },
  {
    ...gemini("gemini-3-flash-preview", 0.5, 3, 0.05, 1024),
    aliases: ["gemini-3-flash"],
    thinking: levels("minimal", "low", "medium", "high"),
    source: `${MODELS}/gemini-3-flash`,
    checked: "2026-12-01",
    note: "Window and output from the Vertex AI model page; prices from OpenRouter's page ($0.50 / $3); the cache-read price and minimum were not found in the stored docs and follow Gemini 2.5 Flash's ratio.",
  },
  {
    ...gemini("gemini-3-pro-preview", 2, 12, 0.2),
    aliases: ["gemini-3-pro"],
    lifecycle: {
      retires: "2026-03-09",
      successor: "gemini-3.1-pro-preview",
      source: DEPRECATIONS,
      checked: LIFECYCLE_CHECKED,
    },
    prices: {
      input: 2,
      output: 12,
      cacheRead: 0.2,
      longContext: { above: 200_000, input: 4, output: 18, cacheRead: 0.4 },
    },
    thinking: levels("low", "high"),
    source: `${MODELS}/gemini-3-pro`,
    checked: "2026-12-01",
    note: "Prices as Gemini 3.1 Pro Preview, its successor; the stored docs show no separate Gemini 3 Pro price page. The preview may be retired; the row keeps the id resolving.",
  },
  {
    ...gemini("gemini-2.5-pro", 1.25, 10, 0.125),
    lifecycle: {
      retires: "2026-12-01",
      successor: "gemini-3.8-flash",
      source: DEPRECATIONS,
      checked: LIFECYCLE_CHECKED,
      note: NOVEMBER_COPY,
    },
    prices: {
      input: 1.25,
      output: 10,
      cacheRead: 0.125,
      longContext: { above: 200_000, input: 2.5, output: 15, cacheRead: 0.25 },
    },
    // Cannot turn thinking off: its smallest budget is 128.
    thinking: budget(128, 32_768, false),
  },
  {
    ...gemini("gemini-2.5-flash", 0.3, 2.5, 0.03, 1024),
    thinking: budget(1, 24_576, true),
    lifecycle: {
      retires: "2026-12-01",
      successor: "gemini-3.5-flash-lite",
      source: DEPRECATIONS,
      checked: LIFECYCLE_CHECKED,
      note: NOVEMBER_COPY,
    },
  },
  {
    ...gemini("gemini-2.5-flash-lite", 0.1, 0.4, 0.01, 1024),
    prices: { input: 0.1, output: 0.4 },
    thinking: budget(512, 24_576, true),
    source: `${MODELS}/gemini-2.5-flash-lite`,
    checked: "2026-12-01",
    note: "Prices from the Vercel AI Gateway page ($0.10 / $0.40); the cache-read price was not found in the stored docs and is left out. Thinking is off unless a budget is set.",
  },
]
