import type { TokenizerFamily } from "../models/types.js"
import type { BlockEdit } from "./edits.js"
import type { Message, ToolUseBlock } from "./message.js"
import type { Overhead, TokenCounter } from "./tokens.js"

/**
 * Masking of old tool results, the first stage of staged compaction: the results of every turn but the
 * last `keepTurns` become a one-line stub that names the tool, what it was run on and how to get the
 * output again. Calls, the model's text and user text stay, so the course of the work is still readable.
 */

/** Options of `maskToolResults`. */
export interface MaskOptions {
  /** The results of this many most recent assistant turns are kept whole. */
  keepTurns: number
  now: number
}

/** The stub prefix; a result that starts with it is already masked. */
export const MASK_PREFIX = "[promptline: masked output of"

/** What the call was run on, in a few words: a path, a command, a pattern, or its input. */
export function callSubject(use: Pick<ToolUseBlock, "input">): string {
  const input = (use.input ?? {}) as Record<string, unknown>
  for (const key of ["path", "command", "regex", "query", "url"]) {
    const value = input[key]
    if (typeof value === "string")
      return `${key} ${JSON.stringify(value.length > 160 ? `${value.slice(0, 157)}...` : value)}`
  }
  const json = JSON.stringify(input)
  return `input ${json.length > 160 ? `${json.slice(0, 157)}...` : json}`
}

/** The one-line stub that replaces a masked tool result. */
export function maskStub(tool: string, subject: string, tokens: number): string {
  const again =
    tool === "execute_command"
      ? "run the command again if you need its output"
      : tool === "read_file"
        ? "read the file again (it may have changed since)"
        : `call ${tool} again with the same input if you need it`
  return `${MASK_PREFIX} ${tool} (${subject}), ${tokens} tokens, hidden to keep the context small; ${again}]`
}

/** Block edits that mask the results of all but the last `keepTurns` assistant turns (none already masked). */
export function maskToolResults(
  view: readonly Message[],
  counter: TokenCounter,
  family: TokenizerFamily,
  overhead: Overhead,
  options: MaskOptions,
): { edits: BlockEdit[]; freed: number } {
  const uses = new Map<string, ToolUseBlock>()
  for (const m of view) for (const b of m.content) if (b.type === "tool_use") uses.set(b.id, b)
  // The first message after the assistant turn that starts the kept tail.
  let turns = 0
  let keepFrom = view.length
  for (let i = view.length - 1; i >= 0 && turns < options.keepTurns; i--) {
    if (view[i]!.role === "assistant") {
      turns++
      keepFrom = i
    }
  }
  const edits: BlockEdit[] = []
  let freed = 0
  for (let mi = 0; mi < keepFrom; mi++) {
    const m = view[mi]!
    m.content.forEach((b, bi) => {
      if (b.type !== "tool_result") return
      const text =
        typeof b.content === "string" ? b.content : b.content.map((c) => (c.type === "text" ? c.text : "")).join("")
      if (text.startsWith(MASK_PREFIX) || text.startsWith("[promptline:")) return
      const use = uses.get(b.toolUseId)
      const tool = use?.name ?? "tool"
      const tokens = counter.countBlock(b, family, overhead)
      const stub = maskStub(tool, use ? callSubject(use) : "an earlier call", tokens)
      const saved = tokens - counter.countText(stub, family)
      if (saved <= 0) return
      freed += saved
      edits.push({
        kind: "mask",
        ts: options.now,
        messageId: m.id,
        block: bi,
        content: { ...b, content: stub },
        subject: tool,
      })
    })
  }
  return { edits, freed }
}
