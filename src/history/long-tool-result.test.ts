import { beforeAll, describe, expect, it } from "vitest"
import type { ModelInfo } from "../models/types.js"
import { ContextManager } from "./context-manager.js"
import type { Message } from "./message.js"
import { overheadOf, TokenCounter } from "./tokens.js"

// Regression: one tool result made of a single 300,000-character pre-token piece (a line of dashes) made
// token counting quadratic, so `fit` ran past the 30 s test timeout.

/** gpt-tokenizer's own o200k count of 300,000 dashes, computed once outside the tests (it takes minutes). */
const DASHES_O200K = 4687

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create()
})

const model: ModelInfo = {
  id: "test-model",
  provider: "openai",
  family: "gpt",
  contextWindow: 128_000,
  maxOutput: 1000,
  tokenizer: "o200k",
  capabilities: { nativeTools: true, images: false, thinking: false },
  source: "test",
}

describe("fit with a 300,000-character tool result of one character", () => {
  it("keeps the history and counts the result exactly", () => {
    const dashes = "-".repeat(300_000)
    const history: Message[] = [
      { id: "m0", role: "user", ts: 0, content: [{ type: "text", text: "read the separator file" }] },
      {
        id: "m1",
        role: "assistant",
        ts: 1,
        content: [{ type: "tool_use", id: "t1", name: "read_file", input: { path: "sep.txt" } }],
      },
      { id: "m2", role: "user", ts: 2, content: [{ type: "tool_result", toolUseId: "t1", content: dashes }] },
      { id: "m3", role: "assistant", ts: 3, content: [{ type: "text", text: "It is one line of dashes." }] },
    ]
    const r = new ContextManager(counter).fit(history, { model, now: 4 })
    expect(r.messages).toEqual(history)
    expect(r.edits).toEqual([])
    expect(counter.countText(dashes)).toBe(DASHES_O200K)
    const o = overheadOf("openai-responses")
    const expected =
      o.request +
      4 * o.message +
      counter.countText("read the separator file") +
      counter.countText(`read_file ${JSON.stringify({ path: "sep.txt" })}`) +
      o.toolBlock +
      DASHES_O200K +
      o.toolBlock +
      counter.countText("It is one line of dashes.")
    expect(r.tokens).toMatchObject({ before: expected, after: expected, fromUsage: false })
  })
})
