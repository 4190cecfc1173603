import type { CacheRules, ModelInfo } from "../types.js"

// Google Gemini API: numbers checked 2026-11-29 against ai.google.dev model and pricing pages.
// Gemini caches implicitly (no breakpoints); explicit context caches are a separate API.
// Gemini 4 Argon and Carbon are at introductory prices through 2026-11-30 ($4 / $20 / $0.20
// cached from 2026-12-01); Gemini 3.8 Flash through 2026-12-31 ($1.50 / $7.50 from 2027-01-01).

const MODELS = "https://ai.google.dev/gemini-api/docs/models"
const PRICING = "https://ai.google.dev/gemini-api/docs/pricing"

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
  }
}

/** The Gemini models (Gemini 4 first, then older models still served). */
export const geminiModels: ModelInfo[] = [
  { ...gemini("gemini-4-argon", 2, 10, 0.1), source: `${MODELS}/gemini-4-argon` },
  gemini("gemini-4-carbon", 2, 10, 0.1),
  gemini("gemini-4-neon", 3, 15, 0.15),
  gemini("gemini-4-hydrogen", 1.5, 7.5, 0.075),
  gemini("gemini-3.8-flash", 0.75, 3.75, 0.075),
  {
    ...gemini("gemini-3.1-pro-preview", 2, 12, 0.2),
    aliases: ["gemini-3.1-pro"],
    prices: {
      input: 2,
      output: 12,
      cacheRead: 0.2,
      longContext: { above: 200_000, input: 4, output: 18, cacheRead: 0.4 },
    },
  },
  {
    ...gemini("gemini-2.5-pro", 1.25, 10, 0.125),
    prices: {
      input: 1.25,
      output: 10,
      cacheRead: 0.125,
      longContext: { above: 200_000, input: 2.5, output: 15, cacheRead: 0.25 },
    },
  },
  gemini("gemini-2.5-flash", 0.3, 2.5, 0.03, 1024),
]
