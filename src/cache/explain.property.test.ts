/**
 * The explainer's central promise as a property: whatever history, whichever message and block is edited
 * (text, a tool call's arguments, a tool result), the verdict names that message and block.
 */
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import type { Block, Message } from "../history/message.js"
import { TokenCounter } from "../history/tokens.js"
import { type BuiltInWireFormat, WIRE_FORMATS } from "../models/types.js"
import { CacheExplainer } from "./explain.js"
import { defaultPrompt, encoded, scriptHistory } from "./test-helpers/script.js"

let explainer: CacheExplainer
beforeAll(async () => {
  explainer = new CacheExplainer({ counter: await TokenCounter.create() })
})

const MARK = "EDITED-HERE"
const prompt = defaultPrompt()

/** The block with `MARK` put into it (into its text, its first argument, or its result). */
function edit(block: Block, where: number): Block {
  const insert = (text: string) =>
    `${text.slice(0, where % (text.length + 1))}${MARK}${text.slice(where % (text.length + 1))}`
  switch (block.type) {
    case "text":
      return { ...block, text: insert(block.text) }
    case "tool_use": {
      const input = { ...(block.input as Record<string, unknown>) }
      const key = Object.keys(input)[0] ?? "path"
      input[key] = insert(String(input[key] ?? ""))
      return { ...block, input }
    }
    case "tool_result":
      return { ...block, content: insert(typeof block.content === "string" ? block.content : "") }
    default:
      return block
  }
}

/** Path of the value `path` names in a body (`messages[3].content[1]`). */
function at(body: unknown, path: string): unknown {
  let v: unknown = body
  for (const step of path.match(/[^.[\]]+/g) ?? []) v = (v as Record<string, unknown>)?.[step]
  return v
}

describe.each(WIRE_FORMATS)("an edit anywhere in a %s history", (format: BuiltInWireFormat) => {
  it("is named by the message and block it was made in", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 3, max: 9 }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        (seed, turns, pickMessage, pickBlock, where) => {
          const history = scriptHistory(2 * turns + 3, seed)
          const before = history.slice(0, 2 * turns + 1)
          const m = pickMessage % before.length
          const editable = history[m]!.content.flatMap((b, i) =>
            ["text", "tool_use", "tool_result"].includes(b.type) ? [i] : [],
          )
          fc.pre(editable.length > 0)
          const b = editable[pickBlock % editable.length]!
          const after: Message[] = history.map((msg, i) =>
            i === m ? { ...msg, content: msg.content.map((x, j) => (j === b ? edit(x, where) : x)) } : msg,
          )
          const previous = encoded(format, prompt, before, 0)
          const current = encoded(format, prompt, after, 30_000)
          const v = explainer.explain(previous, current)
          const named = v.difference
          if (named?.kind !== "message-changed") throw new Error(`difference ${JSON.stringify(named)}`)
          // A miss is caused by the edit; a hit only when the edit lies past the last cached unit.
          if (v.verdict === "miss") expect(v.cause).toEqual(named)
          else expect(v.tokens.counterfactualRead).toBeLessThanOrEqual(v.tokens.shared)
          // The unit the explainer names holds the edit.
          expect(JSON.stringify(at(current.body, named.path))).toContain(MARK)
          expect(JSON.stringify(at(previous.body, named.path) ?? "")).not.toContain(MARK)
          // Where the body lists the history one for one, the indexes are the history's.
          if (format === "anthropic" || format === "gemini") {
            expect(named.message).toBe(m)
            expect(named.block).toBe(b + (m === 0 && prompt.contextMessage ? 1 : 0))
          }
        },
      ),
      { numRuns: 40 },
    )
  })
})
