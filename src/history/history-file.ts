import { readFile } from "node:fs/promises"
import { FileError, ValidationError } from "../errors.js"
import { fieldIssues } from "../field-issues.js"
import { fsProblem } from "../fs-problem.js"
import { parseJsonDocument } from "../json.js"
import { lazyModule, lazyObject, lazyValue } from "../lazy-module.js"
import type { Message } from "./message.js"

/** Builds the stored-history schemas with zod (called once, on first use). */
function buildSchemas(z: typeof import("zod").z) {
  /** The schema of a stored history: an array of messages with content blocks (see message.ts). */
  const textBlock = z.object({ type: z.literal("text"), text: z.string() }).strict()
  const imageBlock = z.object({ type: z.literal("image"), mediaType: z.string(), data: z.string() }).strict()
  const blockSchema = z.discriminatedUnion("type", [
    textBlock,
    imageBlock,
    z
      .object({
        type: z.literal("tool_use"),
        id: z.string().min(1),
        name: z.string().min(1),
        input: z.unknown(),
        signature: z.string().optional(),
        model: z.string().optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal("tool_result"),
        toolUseId: z.string().min(1),
        content: z.union([z.string(), z.array(z.discriminatedUnion("type", [textBlock, imageBlock]))]),
        isError: z.boolean().optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal("thinking"),
        text: z.string(),
        signature: z.string().optional(),
        model: z.string().optional(),
        id: z.string().optional(),
      })
      .strict(),
    z.object({ type: z.literal("redacted_thinking"), data: z.string(), model: z.string().optional() }).strict(),
    z
      .object({
        type: z.literal("compaction"),
        format: z.string().min(1),
        provider: z.string().optional(),
        payload: z.string().optional(),
        summary: z.string().optional(),
        id: z.string().optional(),
      })
      .strict(),
  ])

  /** One stored message (a line of a session's `history.jsonl`, an element of a history file). */
  const messageSchema = z
    .object({
      id: z.string().min(1),
      role: z.enum(["user", "assistant", "system"]),
      content: z.array(blockSchema),
      ts: z.number(),
    })
    .strict()

  /** One content block as stored. */

  /** A stored conversation: messages with unique ids. */
  const historySchema = z.array(messageSchema).superRefine((messages, ctx) => {
    const seen = new Set<string>()
    messages.forEach((m, i) => {
      if (seen.has(m.id)) ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate message id ${m.id}` })
      seen.add(m.id)
    })
  })
  /** A history file as a person writes it: `id` and `ts` may be left out (they are assigned on reading). */
  const historyInputSchema = z
    .array(messageSchema.extend({ id: z.string().min(1).optional(), ts: z.number().optional() }))
    .superRefine((messages, ctx) => {
      const seen = new Set<string>()
      messages.forEach((m, i) => {
        if (m.id === undefined) return
        if (seen.has(m.id)) ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate message id ${m.id}` })
        seen.add(m.id)
      })
    })
  return { blockSchema, messageSchema, historySchema, historyInputSchema }
}

/** zod, loaded on first use: importing this module builds no schema. */
const zod = lazyModule<typeof import("zod")>("zod")
const schemas = lazyValue(() => buildSchemas(zod().z))

/** One content block as stored. */
export const blockSchema = lazyObject(() => schemas().blockSchema)
/** One stored message (a line of a session's `history.jsonl`, an element of a history file). */
export const messageSchema = lazyObject(() => schemas().messageSchema)
/** A stored conversation: messages with unique ids. */
export const historySchema = lazyObject(() => schemas().historySchema)

/**
 * Fills what a written history may leave out: a missing id becomes `m<position>` (1-based, skipping ids the file
 * already uses), a missing time the previous message's (0 for the first).
 */
export function completeMessages(
  messages: readonly (Omit<Message, "id" | "ts"> & { id?: string; ts?: number })[],
): Message[] {
  const taken = new Set(messages.flatMap((m) => (m.id === undefined ? [] : [m.id])))
  let ts = 0
  return messages.map((m, i) => {
    let id = m.id
    if (id === undefined) {
      let n = i + 1
      while (taken.has(`m${n}`)) n++
      id = `m${n}`
      taken.add(id)
    }
    ts = m.ts ?? ts
    return { ...m, id, ts } as Message
  })
}

/** Parses an already-read JSON history; bad fields are listed by path. */
export function historyFromJson(data: unknown, file: string): Message[] {
  const parsed = schemas().historyInputSchema.safeParse(data)
  if (!parsed.success) throw new ValidationError("history", fieldIssues(parsed.error), file)
  return completeMessages(parsed.data as Parameters<typeof completeMessages>[0])
}

/** Parses the text of a history file; bad JSON names the line, bad fields are listed by path. */
export function parseHistory(raw: string, file: string): Message[] {
  return historyFromJson(parseJsonDocument(raw, file, "invalid-history"), file)
}

/** Reads and parses a history file. */
export async function readHistory(path: string): Promise<Message[]> {
  let raw: string
  try {
    raw = await readFile(path, "utf8")
  } catch (error) {
    throw new FileError("file-unreadable", path, `cannot read the history: ${fsProblem(error)}`, {
      cause: error,
    })
  }
  return parseHistory(raw, path)
}
