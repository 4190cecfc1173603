import type { AppliedContextEdit } from "../providers/stream.js"
import type { ScriptTurn } from "./script.js"
import { xmlTurnText } from "./xml-calls.js"

/** A tool call ready to be written: id assigned, arguments serialized once. */
export interface ResolvedCall {
  id: string
  name: string
  input: Record<string, unknown>
  /** The arguments as JSON text, exactly as streamed. */
  arguments: string
}

/** Token usage of a turn, every figure filled. `input` excludes cache reads and writes. */
export interface ResolvedUsage {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  reasoning: number
}

/** A scripted turn made concrete for one request: the dialect applied, ids and usage filled. */
export interface ResolvedTurn {
  /** 0-based position in the script. */
  index: number
  thinking?: string
  signature: string
  /** The model's text; in the XML dialect it ends with the tool calls. */
  text: string
  /** Native tool calls (empty in the XML dialect). */
  calls: ResolvedCall[]
  usage: ResolvedUsage
  stop: "end" | "tool_use" | "length" | "refusal"
  /** A provider compaction item answered first. */
  compaction?: { payload: string; summary?: string }
  /** Context-management edits the provider reports. */
  contextEdits?: AppliedContextEdit[]
}

/** How a turn is resolved for one request. */
export interface ResolveOptions {
  dialect: "native" | "xml"
  /** Prefix of generated call ids, e.g. `toolu_replay_`. */
  callIdPrefix: string
  /** Size of the request body in characters; the default input usage is estimated from it. */
  requestChars: number
}

const estimate = (chars: number) => Math.ceil(chars / 4)

/** Resolves a scripted turn; the same turn, index and options always give the same result. */
export function resolveTurn(turn: ScriptTurn, index: number, options: ResolveOptions): ResolvedTurn {
  const scripted = turn.toolCalls ?? []
  const native = options.dialect === "native"
  const calls: ResolvedCall[] = native
    ? scripted.map((call, i) => ({
        id: call.id ?? `${options.callIdPrefix}${index}_${i}`,
        name: call.name,
        input: call.input,
        arguments: JSON.stringify(call.input),
      }))
    : []
  const text = native ? (turn.text ?? "") : xmlTurnText(turn.text, scripted)
  const reasoning = turn.usage?.reasoning ?? (turn.thinking ? estimate(turn.thinking.length) : 0)
  const outputChars = text.length + calls.reduce((n, c) => n + c.name.length + c.arguments.length, 0)
  const usage: ResolvedUsage = {
    input: turn.usage?.input ?? estimate(options.requestChars),
    output: turn.usage?.output ?? Math.max(1, estimate(outputChars) + reasoning),
    cacheRead: turn.usage?.cacheRead ?? 0,
    cacheWrite: turn.usage?.cacheWrite ?? 0,
    reasoning,
  }
  const stop = turn.stop ?? (calls.length > 0 ? "tool_use" : "end")
  const resolved: ResolvedTurn = {
    index,
    signature: turn.signature ?? replaySignature(index),
    text,
    calls,
    usage,
    stop,
  }
  if (turn.thinking !== undefined) resolved.thinking = turn.thinking
  if (turn.compaction) resolved.compaction = turn.compaction
  if (turn.contextEdits) resolved.contextEdits = turn.contextEdits
  return resolved
}

/** A deterministic stand-in for a provider's opaque reasoning signature (base64 text). */
export function replaySignature(index: number): string {
  return Buffer.from(`promptline-replay-signature-turn-${index}`).toString("base64")
}
