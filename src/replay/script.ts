import { readFile } from "node:fs/promises"
import { dirname, resolve } from "node:path"
import { z } from "zod"
import { FileError, ValidationError } from "../errors.js"
import { fieldIssues } from "../field-issues.js"
import { parseJsonDocument } from "../json.js"

/**
 * The replay script: the model's side of a conversation, turn by turn. The replay server answers
 * the n-th request with the n-th turn, rendered in whatever wire format the request used.
 */

/** A regular expression written as its source (`fail [1-9]`) or as a literal with flags (`/pass/i`). */
export function compilePattern(pattern: string): RegExp {
  const literal = /^\/([\s\S]*)\/([dgimsuy]*)$/.exec(pattern)
  return literal ? new RegExp(literal[1]!, literal[2]) : new RegExp(pattern)
}

const pattern = z.string().superRefine((value, ctx) => {
  try {
    compilePattern(value)
  } catch (error) {
    ctx.addIssue({ code: "custom", message: `not a valid regular expression (${(error as Error).message})` })
  }
})

/** A tool name every provider accepts. */
const toolName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "a tool name is 1-64 characters of [a-zA-Z0-9_-]")

const count = z.number().int().min(0)

const toolCallSchema = z
  .object({
    name: toolName,
    /** The arguments, as the tool's JSON Schema describes them. */
    input: z.record(z.string(), z.unknown()),
    /** Overrides the generated call id (same id in every wire format). */
    id: z
      .string()
      .regex(/^[a-zA-Z0-9_-]{1,64}$/, "a call id is 1-64 characters of [a-zA-Z0-9_-]")
      .optional(),
  })
  .strict()

const usageSchema = z
  .object({
    /** Input tokens not read from or written to the cache. */
    input: count.optional(),
    /** Output tokens, reasoning included. */
    output: count.optional(),
    cacheRead: count.optional(),
    cacheWrite: count.optional(),
    /** Reasoning tokens (part of `output`). */
    reasoning: count.optional(),
  })
  .strict()

/** A failure served instead of the turn (once per entry), before the turn itself is answered. */
const faultSchema = z.discriminatedUnion("kind", [
  /** 429 with a retry-after header (seconds). */
  z.object({ kind: z.literal("rate-limit"), retryAfter: z.number().min(0).default(1) }).strict(),
  /** 500 in the provider's error shape. */
  z.object({ kind: z.literal("server-error") }).strict(),
  /** The provider's "overloaded" answer: 529 for Anthropic, 503 for the others. */
  z.object({ kind: z.literal("overloaded") }).strict(),
  /** 400 with the provider's own context-window-exceeded message. */
  z.object({ kind: z.literal("context-overflow") }).strict(),
  /** The stream starts, then the connection is cut halfway. */
  z.object({ kind: z.literal("disconnect") }).strict(),
])

/** What the request answered by a turn must look like; a mismatch makes the replay fail loudly. */
const expectationSchema = z
  .object({
    /** Matches the user-side text of the last turn (user messages after the last assistant message). */
    userText: pattern.optional(),
    /** Matches the system prompt. */
    system: pattern.optional(),
    /** Each entry must match one tool result of the last turn. */
    toolResults: z
      .array(
        z
          .object({
            /** The tool whose result this is. */
            tool: toolName.optional(),
            /** Matches the result's text. */
            matches: pattern.optional(),
          })
          .strict(),
      )
      .optional(),
    /** Tools the request must offer: declared natively, or named in the system prompt for the XML dialect. */
    tools: z.array(toolName).optional(),
    /** The tool-calling dialect the request must use. */
    dialect: z.enum(["native", "xml"]).optional(),
  })
  .strict()

/** A provider's compaction item, answered first in the turn (Anthropic `compaction` block, Responses item). */
const compactionSchema = z
  .object({
    /** The opaque payload (Responses `encrypted_content`; Anthropic `encrypted_content`). */
    payload: z.string().min(1),
    /** The readable summary (Anthropic's `content`; the Responses item has none). */
    summary: z.string().min(1).optional(),
  })
  .strict()

/** One context-management edit the provider reports applying (Anthropic `context_management.applied_edits`). */
const contextEditSchema = z
  .object({
    type: z.string().min(1),
    clearedInputTokens: count.optional(),
    clearedToolUses: count.optional(),
    clearedThinkingTurns: count.optional(),
  })
  .strict()

const turnSchema = z
  .object({
    compaction: compactionSchema.optional(),
    contextEdits: z.array(contextEditSchema).optional(),
    thinking: z.string().optional(),
    /** Opaque signature sent with the thinking (generated when absent). */
    signature: z.string().optional(),
    text: z.string().optional(),
    toolCalls: z.array(toolCallSchema).optional(),
    usage: usageSchema.optional(),
    /** Why the model stops; by default `tool_use` when the turn calls tools natively, else `end`. */
    stop: z.enum(["end", "length", "refusal"]).optional(),
    expect: expectationSchema.optional(),
    faults: z.array(faultSchema).optional(),
  })
  .strict()
  .refine((t) => Boolean(t.text) || Boolean(t.thinking) || (t.toolCalls?.length ?? 0) > 0 || Boolean(t.compaction), {
    message: "a turn needs text, thinking, a compaction item or at least one tool call",
  })

export const replayScriptSchema = z
  .object({
    version: z.literal(1),
    description: z.string().optional(),
    /** The user's request that starts the task, for runners. */
    task: z.string().optional(),
    /** The folder the task runs in, relative to the script file, for runners. */
    workspace: z.string().min(1).optional(),
    turns: z.array(turnSchema).min(1, "a script needs at least one turn"),
    /**
     * The answer to summarizing requests (staged compaction), served out of turn: a request whose last
     * user text matches `when` gets `text` and uses no turn of the script.
     */
    summary: z
      .object({ when: pattern.default("Condense the conversation above"), text: z.string().min(1) })
      .strict()
      .optional(),
    /** The compaction item `POST /v1/responses/compact` answers with (default: a payload named after the request). */
    compact: z
      .object({ payload: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict()

export type ReplayScript = z.output<typeof replayScriptSchema>
/** A script as written by a person: defaults may be left out. */
export type ReplayScriptInput = z.input<typeof replayScriptSchema>
export type ScriptTurn = z.output<typeof turnSchema>
export type ScriptToolCall = z.output<typeof toolCallSchema>
export type ScriptUsage = z.output<typeof usageSchema>
export type ReplayFault = z.output<typeof faultSchema>
export type TurnExpectation = z.output<typeof expectationSchema>

/** Validates a replay script; throws a ValidationError listing every bad field by path. */
export function parseReplayScript(value: unknown, file?: string): ReplayScript {
  const result = replayScriptSchema.safeParse(value)
  if (!result.success) throw new ValidationError("replay script", fieldIssues(result.error), file)
  return result.data
}

/** Reads and validates a replay script file. */
export async function loadReplayScript(file: string): Promise<ReplayScript> {
  let raw: string
  try {
    raw = await readFile(file, "utf8")
  } catch (cause) {
    throw new FileError(
      "replay-script-unreadable",
      file,
      `cannot read the replay script (${(cause as Error).message})`,
      {
        cause,
      },
    )
  }
  return parseReplayScript(parseJsonDocument(raw, file, "replay-script-not-json"), file)
}

/** The absolute folder a script's task runs in, or undefined when the script names none. */
export function scriptWorkspace(script: ReplayScript, scriptFile: string): string | undefined {
  return script.workspace === undefined ? undefined : resolve(dirname(scriptFile), script.workspace)
}
