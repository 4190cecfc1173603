import type { z } from "zod"
import { PromptlineError } from "../errors.js"
import { fieldIssues, issuesLine } from "../field-issues.js"
import { lazyModule, lazyObject, lazyValue } from "../lazy-module.js"
import type { Edit } from "./edits.js"
import type { Message } from "./message.js"

/**
 * Migrations of persisted change logs. Schema 0 (the first format) addressed messages by index:
 * `{ version: 0, deletedRange: [start, end] | null, truncatedAt?: ts, updates: [[message, block, ts, text]] }`.
 * Schema 1 addresses messages by id and records every edit with its kind. Migrating 0 → 1 needs the
 * history the indexes refer to.
 */

/** Builds the change-log schemas with zod (called once, on first use). */
function buildSchemas(z: typeof import("zod").z) {
  const blockSchema = z.looseObject({ type: z.string() })

  const editSchema = z.discriminatedUnion("kind", [
    z.object({
      kind: z.enum(["dedup", "prune", "mask"]),
      ts: z.number(),
      messageId: z.string(),
      block: z.number().int().nonnegative(),
      content: blockSchema,
      subject: z.string().optional(),
    }),
    z.object({ kind: z.enum(["notice", "reinject"]), ts: z.number(), messageId: z.string(), text: z.string() }),
    z.object({ kind: z.literal("truncation"), ts: z.number(), from: z.string(), to: z.string() }),
    z.object({ kind: z.literal("compaction"), ts: z.number(), from: z.string(), to: z.string(), summary: z.string() }),
  ])

  const v1Schema = z.object({ schema: z.literal(1), edits: z.array(editSchema) })

  const v0Schema = z.object({
    version: z.literal(0),
    deletedRange: z.tuple([z.number().int(), z.number().int()]).nullable(),
    truncatedAt: z.number().optional(),
    updates: z.array(z.tuple([z.number().int(), z.number().int(), z.number(), z.string()])),
  })
  return { v1Schema, v0Schema }
}

/** zod, loaded on first use: importing this module builds no schema. */
const zod = lazyModule<typeof import("zod")>("zod")
const schemas = lazyValue(() => buildSchemas(zod().z))

const v1Schema = lazyObject(() => schemas().v1Schema)
const v0Schema = lazyObject(() => schemas().v0Schema)

/** Reads any known schema and returns schema-1 edits; throws a PromptlineError naming the problem. */
export function migrateChangeLog(data: unknown, history?: readonly Message[]): Edit[] {
  const version =
    (data as { schema?: unknown; version?: unknown } | null)?.schema ?? (data as { version?: unknown })?.version
  if (version === 1) {
    const parsed = v1Schema.safeParse(data)
    if (!parsed.success)
      throw new PromptlineError(
        "change-log-invalid",
        `not a valid change log: ${issuesLine(fieldIssues(parsed.error))}`,
      )
    return parsed.data.edits as Edit[]
  }
  if (version === 0) {
    const parsed = v0Schema.safeParse(data)
    if (!parsed.success)
      throw new PromptlineError(
        "change-log-invalid",
        `not a valid change log: ${issuesLine(fieldIssues(parsed.error))}`,
      )
    if (!history)
      throw new PromptlineError("change-log-needs-history", "a schema 0 change log needs the history to migrate")
    return migrateV0(parsed.data, history)
  }
  throw new PromptlineError("change-log-invalid", `unknown change log schema ${JSON.stringify(version)}`)
}

function migrateV0(v0: z.infer<typeof v0Schema>, history: readonly Message[]): Edit[] {
  const idAt = (i: number): string => {
    const m = history[i]
    if (!m)
      throw new PromptlineError("change-log-invalid", `message index ${i} is beyond the history (${history.length})`)
    return m.id
  }
  const edits: Edit[] = v0.updates.map(([message, block, ts, text]) => ({
    kind: "dedup",
    ts,
    messageId: idAt(message),
    block,
    content: { type: "text", text },
  }))
  if (v0.deletedRange) {
    const [start, end] = v0.deletedRange
    const ts = v0.truncatedAt ?? Math.max(0, ...v0.updates.map((u) => u[2]))
    edits.push({ kind: "truncation", ts, from: idAt(start), to: idAt(end) })
  }
  return edits
}
