import type { PromptContext } from "../context/prompt-context.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { ModelInfo } from "../models/types.js"
import type { Variant, VariantMatch } from "./variant.js"

/** One variant as the selection saw it. */
export interface ConsideredVariant {
  id: string
  priority: number
  matched: boolean
  /** Why it matched or did not. */
  reason: string
}

/** Which variant a context gets and why; `considered` lists every variant in the order tried. */
export interface VariantChoice {
  variant: Variant
  reason: string
  considered: ConsideredVariant[]
  diagnostics: Diagnostic[]
}

/** Variants in the order they are tried: priority high to low, ties by id. */
export function orderVariants(variants: readonly Variant[]): Variant[] {
  return [...variants].sort((a, b) => b.priority - a.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** Tests one condition set; returns the reason it holds, or undefined. */
function test(m: VariantMatch, model: ModelInfo, context: PromptContext): string | undefined {
  const why: string[] = []
  if (m.providers) {
    if (!m.providers.includes(model.provider)) return undefined
    why.push(`provider ${model.provider}`)
  }
  if (m.families) {
    if (!m.families.includes(model.family)) return undefined
    why.push(`family ${model.family}`)
  }
  if (m.models) {
    const hit = m.models.find((re) => re.test(model.id))
    if (!hit) return undefined
    why.push(`model id matches ${hit}`)
  }
  if (m.audience) {
    if (context.audience !== m.audience) return undefined
    why.push(`audience ${m.audience}`)
  }
  if (m.local !== undefined) {
    if ((model.local ?? false) !== m.local) return undefined
    why.push(m.local ? "local model" : "hosted model")
  }
  if (m.maxContextWindow !== undefined) {
    if (model.contextWindow > m.maxContextWindow) return undefined
    why.push(`context window ${model.contextWindow} ≤ ${m.maxContextWindow}`)
  }
  if (m.nativeTools !== undefined) {
    if (model.capabilities.nativeTools !== m.nativeTools) return undefined
    why.push(m.nativeTools ? "native tools" : "no native tools")
  }
  if (m.custom) {
    if (!m.custom(model, context)) return undefined
    why.push("custom matcher")
  }
  return why.join(", ")
}

/** Chooses the variant for a context: a forced one, else the first match by priority, else `generic`. */
export function chooseVariant(variants: readonly Variant[], context: PromptContext, model: ModelInfo): VariantChoice {
  const diagnostics: Diagnostic[] = []
  const ordered = orderVariants(variants)
  if (context.variant) {
    const forced = ordered.find((v) => v.id === context.variant)
    if (forced) return { variant: forced, reason: "forced by the context", considered: [], diagnostics }
    diagnostics.push(
      diagnostic("warning", "unknown-variant", `no variant "${context.variant}"; choosing one by matching instead`),
    )
  }
  const considered: ConsideredVariant[] = []
  let chosen: { variant: Variant; reason: string } | undefined
  for (const variant of ordered) {
    if (chosen) {
      considered.push({
        id: variant.id,
        priority: variant.priority,
        matched: false,
        reason: "not tried: an earlier variant matched",
      })
      continue
    }
    if (variant.match.length === 0) {
      chosen = { variant, reason: "fallback: matches every model" }
      considered.push({ id: variant.id, priority: variant.priority, matched: true, reason: chosen.reason })
      continue
    }
    let reason: string | undefined
    try {
      for (const m of variant.match) {
        reason = test(m, model, context)
        if (reason !== undefined) break
      }
    } catch (cause) {
      diagnostics.push(
        diagnostic(
          "warning",
          "matcher-failed",
          `variant "${variant.id}": matcher threw (${(cause as Error).message}); skipped`,
        ),
      )
      considered.push({ id: variant.id, priority: variant.priority, matched: false, reason: "matcher threw" })
      continue
    }
    if (reason !== undefined) chosen = { variant, reason }
    considered.push({
      id: variant.id,
      priority: variant.priority,
      matched: reason !== undefined,
      reason: reason ?? "no condition set holds",
    })
  }
  if (!chosen) {
    const fallback = ordered.find((v) => v.id === "generic") ?? ordered[ordered.length - 1]
    if (!fallback) throw new Error("no variants registered")
    chosen = { variant: fallback, reason: "no variant matched; using the fallback" }
  }
  return { ...chosen, considered, diagnostics }
}
