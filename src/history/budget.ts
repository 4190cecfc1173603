import type { ModelInfo } from "../models/types.js"

/** How much of a model's window the history may use. */
export interface Budget {
  /** The model's context window. */
  window: number
  /** Tokens held back for the answer and for counting error. */
  reserve: number
  /** What system prompt, tools and messages together may take: window − reserve, and below `maxInput` less its margin. */
  effective: number
}

/**
 * The default reserve, Cline's rule: 64k → 27k (37k usable), 128k → 30k (98k), 200k → 40k (160k),
 * otherwise whichever of window − 40k and 80% of the window is larger is usable.
 */
export function defaultReserve(window: number): number {
  switch (window) {
    case 64_000:
      return 27_000
    case 128_000:
      return 30_000
    case 200_000:
      return 40_000
    default:
      return window - Math.max(window - 40_000, Math.floor(window * 0.8))
  }
}

/**
 * The share of a model's input limit (`maxInput`) held back for counting error when that limit, not the
 * window, bounds the prompt: token counts are estimates or miss provider overheads, and a prompt one token
 * over the limit is refused. The answer has its own room there, so only the counting margin is needed.
 */
export const INPUT_LIMIT_MARGIN = 0.05

/**
 * The budget of a model; `reserve` overrides the default rule (a number of tokens or a fraction < 1).
 * A model whose input limit is below its window (`maxInput`) gets that limit less `INPUT_LIMIT_MARGIN`.
 */
export function budgetFor(model: Pick<ModelInfo, "contextWindow" | "maxInput">, reserve?: number): Budget {
  const window = model.contextWindow
  const held =
    reserve === undefined ? defaultReserve(window) : reserve < 1 ? Math.ceil(window * reserve) : Math.floor(reserve)
  const clamped = Math.min(Math.max(held, 0), window - 1)
  const inputCap =
    model.maxInput === undefined
      ? Number.POSITIVE_INFINITY
      : model.maxInput - Math.ceil(model.maxInput * INPUT_LIMIT_MARGIN)
  return { window, reserve: clamped, effective: Math.max(1, Math.min(window - clamped, inputCap)) }
}
