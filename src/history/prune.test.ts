import { beforeAll, describe, expect, it } from "vitest"
import type { Message } from "./message.js"
import { prunedNotice, pruneToolOutputs } from "./prune.js"
import { overheadOf, TokenCounter } from "./tokens.js"

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create()
})

/** Ten command runs, each with an output of about 200 tokens. */
const history: Message[] = [{ id: "m0", role: "user", ts: 0, content: [{ type: "text", text: "go" }] }]
for (let i = 0; i < 10; i++) {
  history.push({
    id: `a${i}`,
    role: "assistant",
    ts: i,
    content: [{ type: "tool_use", id: `t${i}`, name: "execute_command", input: { command: "npm test" } }],
  })
  history.push({
    id: `u${i}`,
    role: "user",
    ts: i,
    content: [{ type: "tool_result", toolUseId: `t${i}`, content: `run ${i} ok\n`.repeat(50) }],
  })
}

describe("pruneToolOutputs", () => {
  it("keeps the newest outputs up to keepRecent tokens and replaces older ones", () => {
    const { edits, freed } = pruneToolOutputs(history, counter, "o200k", overheadOf("anthropic"), {
      keepRecent: 500,
      minFree: 100,
      now: 9,
    })
    // Outputs are kept newest first until 500 tokens are reached; every older one is pruned.
    const per = counter.countBlock(history[2]!.content[0]!, "o200k", overheadOf("anthropic"))
    const kept = Math.ceil(500 / per)
    expect(kept).toBeGreaterThan(1)
    expect(edits.map((e) => e.messageId)).toEqual(Array.from({ length: 10 - kept }, (_, i) => `u${i}`))
    expect(edits[0]!.content).toEqual({
      type: "tool_result",
      toolUseId: "t0",
      content: prunedNotice("execute_command"),
    })
    expect(freed).toBeGreaterThan(1000)
  })

  it("does nothing when it would free less than minFree", () => {
    const r = pruneToolOutputs(history, counter, "o200k", overheadOf("anthropic"), {
      keepRecent: 500,
      minFree: 100_000,
      now: 9,
    })
    expect(r).toEqual({ edits: [], freed: 0 })
  })
})
