/**
 * Fitting a requested thinking setting to what a model's API accepts (its `ThinkingRules` in the catalog).
 * Each function returns the value to send and, when it differs from the request, a diagnostic saying why.
 * A model without rules gets the request unchanged.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { type ModelInfo, REASONING_EFFORTS, type ReasoningEffort } from "./types.js"

/** A value to send, with the diagnostic that explains a change from the request. */
export interface Fitted<T> {
  value: T
  diagnostic?: Diagnostic
}

const rank = (effort: ReasoningEffort): number => REASONING_EFFORTS.indexOf(effort)

/**
 * The accepted effort nearest to `wanted`; between two equally near, the higher (a model asked for
 * `medium` that only takes `low` and `high` thinks more rather than less).
 */
export function fitEffort(model: Pick<ModelInfo, "id" | "thinking">, wanted: ReasoningEffort): Fitted<ReasoningEffort> {
  const accepted = model.thinking?.efforts
  if (!accepted || accepted.length === 0 || accepted.includes(wanted)) return { value: wanted }
  let best = accepted[0]!
  for (const effort of accepted) {
    const distance = Math.abs(rank(effort) - rank(wanted))
    const bestDistance = Math.abs(rank(best) - rank(wanted))
    if (distance < bestDistance || (distance === bestDistance && rank(effort) > rank(best))) best = effort
  }
  return {
    value: best,
    diagnostic: diagnostic(
      "warning",
      "thinking-effort-adjusted",
      `${model.id} does not accept effort "${wanted}" (it takes ${accepted.join(", ")}); "${best}" is sent`,
    ),
  }
}

/** A thinking budget inside the model's accepted range (a budget of 0 stays 0 only when thinking can be off). */
export function fitBudget(model: Pick<ModelInfo, "id" | "thinking">, wanted: number): Fitted<number> {
  const rules = model.thinking
  if (rules?.control !== "budget") return { value: wanted }
  if (wanted === 0 && rules.canDisable) return { value: 0 }
  const low = rules.minBudget ?? 1
  const high = rules.maxBudget ?? Number.POSITIVE_INFINITY
  const value = Math.min(Math.max(wanted, low), high)
  if (value === wanted) return { value }
  return {
    value,
    diagnostic: diagnostic(
      "warning",
      "thinking-budget-adjusted",
      `${model.id} accepts a thinking budget of ${low}–${high}; ${value} is sent instead of ${wanted}`,
    ),
  }
}

/**
 * What "thinking off" becomes for a model: `off` when its rules allow it (or it has none), otherwise the
 * least thinking it accepts (`budget` or `effort`), with a diagnostic.
 */
export function fitThinkingOff(
  model: Pick<ModelInfo, "id" | "thinking">,
): { off: true } | { off: false; budget?: number; effort?: ReasoningEffort; diagnostic: Diagnostic } {
  const rules = model.thinking
  if (!rules || rules.canDisable) return { off: true }
  const budget = rules.control === "budget" ? (rules.minBudget ?? 1) : undefined
  const effort = rules.control === "budget" ? undefined : rules.efforts?.[0]
  const least = budget !== undefined ? `its minimum budget (${budget})` : effort ? `"${effort}"` : "its default"
  return {
    off: false,
    budget,
    effort,
    diagnostic: diagnostic(
      "warning",
      "thinking-not-disabled",
      `${model.id} cannot turn thinking off; ${least} is requested instead`,
    ),
  }
}
