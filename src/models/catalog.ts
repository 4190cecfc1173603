import { anthropicModels } from "./catalog/anthropic.js"
import { geminiModels } from "./catalog/gemini.js"
import { localModels } from "./catalog/local.js"
import { openaiModels } from "./catalog/openai.js"
import { deepseekModels, mistralModels, qwenModels, xaiModels } from "./catalog/others.js"
import type { ModelInfo } from "./types.js"

/**
 * The model catalog: every known model, one row each, in a fixed order (provider, then newest first).
 * Each row cites its source. Rows are data; `resolveModel` looks ids up here.
 */
export const MODEL_CATALOG: readonly ModelInfo[] = Object.freeze([
  ...anthropicModels,
  ...openaiModels,
  ...geminiModels,
  ...deepseekModels,
  ...xaiModels,
  ...mistralModels,
  ...qwenModels,
  ...localModels,
])

/** The context window used for a model the catalog does not know. */
export const DEFAULT_CONTEXT_WINDOW = 128_000

/** The maximum output used for a model the catalog does not know. */
export const DEFAULT_MAX_OUTPUT = 8_192
