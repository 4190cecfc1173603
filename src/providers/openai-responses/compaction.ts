/**
 * OpenAI Responses compaction on the wire: the `compaction` item (an opaque `encrypted_content` the server made,
 * sent back as an input item), the request's `context_management: [{ type: "compaction", compact_threshold }]`,
 * and the body of `POST /v1/responses/compact`.
 */
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { CompactionBlock } from "../../history/message.js"
import {
  type ContextManagementOptions,
  type ProviderCompactionOptions,
  settingsOf,
  validateContextManagement,
} from "../context-management.js"
import { obj, str } from "../stream.js"
import type { OpenAIResponsesRequest, ResponseCompactionItem } from "./wire-types.js"

/** An internal compaction block as the input item that sends it back. */
export function compactionItem(block: CompactionBlock): ResponseCompactionItem {
  return { type: "compaction", ...(block.id ? { id: block.id } : {}), encrypted_content: block.payload ?? "" }
}

/** A `compaction` item (output or input) as an internal block; undefined without its encrypted content. */
export function compactionFromItem(item: Record<string, unknown>): CompactionBlock | undefined {
  const payload = str(item.encrypted_content)
  if (payload === undefined) return undefined
  const id = str(item.id)
  return { type: "compaction", format: "openai-responses", payload, ...(id ? { id } : {}) }
}

/** The request's `context_management` for the options; what the Responses API has no form for is a diagnostic. */
export function responsesContextManagement(
  options: ContextManagementOptions,
  diagnostics: Diagnostic[],
): OpenAIResponsesRequest["context_management"] {
  validateContextManagement(options, "openai-responses")
  const unsupported = [
    options.clearToolUses !== undefined ? "clearToolUses" : undefined,
    options.clearThinking !== undefined ? "clearThinking" : undefined,
  ].filter((x) => x !== undefined)
  const compaction = settingsOf<ProviderCompactionOptions>(options.compaction)
  if (compaction?.instructions !== undefined) unsupported.push("compaction.instructions")
  if (compaction?.pauseAfterCompaction !== undefined) unsupported.push("compaction.pauseAfterCompaction")
  if (unsupported.length > 0)
    diagnostics.push(
      diagnostic(
        "warning",
        "context-management-unsupported",
        `the Responses API has no form for contextManagement.${unsupported.join(", contextManagement.")}; not sent`,
      ),
    )
  if (!compaction) return undefined
  return [
    { type: "compaction", ...(compaction.trigger !== undefined ? { compact_threshold: compaction.trigger } : {}) },
  ]
}

/** A request's `context_management` read back; entries of other types are listed in `unmodeled`. */
export function fromResponsesContextManagement(
  value: unknown,
  unmodeled: string[],
): ContextManagementOptions | undefined {
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value)) {
    unmodeled.push("context_management")
    return undefined
  }
  let out: ContextManagementOptions | undefined
  value.forEach((entry, i) => {
    const e = obj(entry)
    if (e?.type !== "compaction") {
      unmodeled.push(`context_management[${i}]`)
      return
    }
    const threshold = e.compact_threshold
    out = { compaction: typeof threshold === "number" ? { trigger: threshold } : true }
    for (const key of Object.keys(e))
      if (key !== "type" && key !== "compact_threshold" && e[key] != null)
        unmodeled.push(`context_management[${i}].${key}`)
  })
  return out
}
