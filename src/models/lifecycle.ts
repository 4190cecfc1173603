import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { MODEL_CATALOG } from "./catalog.js"
import type { ModelInfo } from "./types.js"

/**
 * Where a model is in its provider's lifecycle on a given day. The day is always the caller's (a build passes
 * its context's `date`): nothing here reads the clock, so the same inputs give the same answer on any machine.
 */

/** Active (no end announced, or announced for a later day), deprecated (announced, still served) or retired. */
export type LifecycleState = "active" | "deprecated" | "retired"

/** The state of a model on `date` (YYYY-MM-DD; days compare as text). */
export function lifecycleState(model: Pick<ModelInfo, "lifecycle">, date: string): LifecycleState {
  const life = model.lifecycle
  if (!life) return "active"
  if (date >= life.retires) return "retired"
  if (life.deprecated !== undefined && date < life.deprecated) return "active"
  return "deprecated"
}

/** A catalog row by id or alias, user rows first. */
function rowOf(id: string, rows: readonly ModelInfo[]): ModelInfo | undefined {
  return rows.find((m) => m.id === id || m.aliases?.includes(id))
}

/**
 * The model to move to on `date`: the provider's named successor, and while that one is itself retired by then,
 * its own successor (Sonnet 3.7 → Sonnet 4.5 → Sonnet 5.5). Undefined when the provider names none.
 */
export function successorOf(
  model: Pick<ModelInfo, "lifecycle">,
  date: string,
  rows: readonly ModelInfo[] = MODEL_CATALOG,
): string | undefined {
  let next = model.lifecycle?.successor
  const seen = new Set<string>()
  while (next !== undefined && !seen.has(next)) {
    seen.add(next)
    const row = rowOf(next, rows)
    if (!row || lifecycleState(row, date) !== "retired" || row.lifecycle?.successor === undefined) return next
    next = row.lifecycle.successor
  }
  return next
}

/**
 * A warning when the model is retired (`model-retired`: requests to it fail) or deprecated (`model-deprecated`)
 * on `date`, naming the successor to move to; undefined for an active model. `rows` are catalog additions
 * (the user's models) looked at before the catalog when following successors.
 */
export function lifecycleDiagnostic(
  model: ModelInfo,
  date: string,
  rows: readonly ModelInfo[] = [],
): Diagnostic | undefined {
  const life = model.lifecycle
  const state = lifecycleState(model, date)
  if (!life || state === "active") return undefined
  const name =
    model.canonicalId && model.canonicalId !== model.id ? `"${model.id}" (${model.canonicalId})` : `"${model.id}"`
  const successor = successorOf(model, date, [...rows, ...MODEL_CATALOG])
  const move = successor
    ? ` Use "${successor}", its successor (--model ${successor}, or "model" in promptline.config.json).`
    : " The provider names no successor; choose a current model."
  const where = `(${life.source})`
  if (state === "retired")
    return diagnostic(
      "warning",
      "model-retired",
      `model ${name} was retired by ${model.provider} on ${life.retires}: requests to it fail ${where}.${move}`,
    )
  const since = life.deprecated ? ` since ${life.deprecated}` : ""
  return diagnostic(
    "warning",
    "model-deprecated",
    `model ${name} is deprecated${since} and retires on ${life.retires} ${where}.${move}`,
  )
}
