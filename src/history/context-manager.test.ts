import { beforeAll, describe, expect, it } from "vitest"
import { generateHistory } from "../../test/fixtures/history/generate.js"
import type { ModelInfo } from "../models/types.js"
import { ChangeLog } from "./change-log.js"
import { ContextManager } from "./context-manager.js"
import { dedupNotice } from "./dedup.js"
import type { Message } from "./message.js"
import { overheadOf, TokenCounter } from "./tokens.js"

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create()
})

const model = (contextWindow: number, maxOutput = 1000): ModelInfo => ({
  id: "test-model",
  provider: "openai",
  family: "gpt",
  contextWindow,
  maxOutput,
  tokenizer: "o200k",
  capabilities: { nativeTools: true, images: false, thinking: false },
  source: "test",
})

/** A conversation that reads the same big file five times. */
function rereads(times: number, size: number): Message[] {
  const history: Message[] = [{ id: "m0", role: "user", ts: 0, content: [{ type: "text", text: "task" }] }]
  for (let i = 0; i < times; i++) {
    history.push({
      id: `m${history.length}`,
      role: "assistant",
      ts: i,
      content: [{ type: "tool_use", id: `t${i}`, name: "read_file", input: { path: "big.ts" } }],
    })
    history.push({
      id: `m${history.length}`,
      role: "user",
      ts: i,
      content: [{ type: "tool_result", toolUseId: `t${i}`, content: `line ${i}\n`.repeat(size) }],
    })
  }
  return history
}

describe("ContextManager.fit", () => {
  it("returns the history untouched while it fits, with exact token figures", () => {
    const manager = new ContextManager(counter)
    const history = generateHistory({ messages: 21, fileLines: 10 })
    const r = manager.fit(history, { model: model(128_000), now: 1, system: "You are a coding agent." })
    expect(r.messages).toEqual(history)
    expect(r.edits).toEqual([])
    const expected =
      counter.countText("You are a coding agent.") +
      counter.countMessages(history, "o200k", overheadOf("openai-responses"))
    expect(r.tokens).toMatchObject({ before: expected, after: expected, fromUsage: false })
    expect(r.tokens.budget.effective).toBe(98_000)
  })

  it("takes reported usage as ground truth plus exact counts of what came after", () => {
    const manager = new ContextManager(counter)
    const history = generateHistory({ messages: 21, fileLines: 10 })
    const r = manager.fit(history, { model: model(128_000), now: 1, usage: { promptTokens: 5000, messages: 19 } })
    const tail =
      counter.countMessages(history.slice(19), "o200k", overheadOf("openai-responses")) -
      overheadOf("openai-responses").request
    expect(r.tokens.before).toBe(5000 + tail)
    expect(r.tokens.fromUsage).toBe(true)
  })

  it("cuts when the provider reports more tokens than we count (a reported overflow)", () => {
    const manager = new ContextManager(counter)
    const history = generateHistory({ messages: 81, fileLines: 10 })
    const local = manager.fit(history, { model: model(128_000), now: 1 })
    expect(local.edits).toEqual([])
    const view = manager.view(history)
    const r = manager.fit(history, {
      model: model(128_000),
      now: 2,
      usage: { promptTokens: 128_001, messages: view.length },
    })
    expect(r.edits.some((e) => e.kind === "truncation")).toBe(true)
    expect(r.messages.length).toBeLessThan(history.length)
    expect(r.tokens.after).toBeLessThanOrEqual(r.tokens.budget.effective)
  })

  it("dedups first and skips truncation when dedup freed enough", () => {
    const manager = new ContextManager(counter)
    const history = rereads(5, 400)
    const r = manager.fit(history, { model: model(6000, 100), now: 7 })
    expect(r.edits.every((e) => e.kind === "dedup")).toBe(true)
    expect(r.edits).toHaveLength(4)
    expect(r.messages).toHaveLength(history.length)
    expect(JSON.stringify(r.messages[2])).toContain(dedupNotice("big.ts"))
    expect(r.tokens.after).toBeLessThan(r.tokens.before * 0.5)
    expect(r.diagnostics.map((d) => d.code)).toContain("context-deduplicated")
  })

  it("skips truncation above the budget when dedup freed at least 30% and the window still has room", () => {
    const manager = new ContextManager(counter, { reserve: 0.5 })
    const big = rereads(2, 600)
    const other: Message[] = [
      { id: "x1", role: "assistant", ts: 9, content: [{ type: "text", text: "checking" }] },
      { id: "x2", role: "user", ts: 9, content: [{ type: "text", text: "more context ".repeat(500) }] },
    ]
    const history = [...big, ...other]
    const r = manager.fit(history, { model: model(6000, 100), now: 3 })
    expect(r.tokens.before).toBeGreaterThan(r.tokens.budget.effective)
    expect(r.tokens.after).toBeGreaterThan(r.tokens.budget.effective)
    expect(r.tokens.after).toBeLessThan(6000 - 100)
    expect(r.edits.map((e) => e.kind)).toEqual(["dedup"])
    expect(r.diagnostics.map((d) => d.code)).toContain("context-truncation-skipped")
    // With a higher threshold the same history is cut.
    const strict = new ContextManager(counter, { reserve: 0.5, dedupThreshold: 0.9 })
    expect(strict.fit(history, { model: model(6000, 100), now: 3 }).edits.map((e) => e.kind)).toContain("truncation")
  })

  it("truncates after dedup when dedup is not enough, and records every edit with the time", () => {
    const manager = new ContextManager(counter)
    const history = generateHistory({ messages: 201, fileLines: 40 })
    const r = manager.fit(history, { model: model(20_000), now: 99 })
    expect(r.tokens.after).toBeLessThanOrEqual(r.tokens.budget.effective)
    expect(new Set(r.edits.map((e) => e.kind))).toEqual(new Set(["dedup", "truncation", "notice", "reinject"]))
    expect(r.edits.every((e) => e.ts === 99)).toBe(true)
    expect(manager.changeLog.edits).toEqual(r.edits)
    // Undo restores the full history.
    manager.changeLog.undo(98)
    expect(manager.view(history)).toEqual(history)
  })

  it("cache-aware: one deep cut, then many turns without another", () => {
    const manager = new ContextManager(counter)
    const history = generateHistory({ messages: 601, fileLines: 30 })
    const cuts: number[] = []
    for (let k = 1; k <= history.length; k += 2) {
      const r = manager.fit(history.slice(0, k), { model: model(30_000), now: k })
      if (r.edits.some((e) => e.kind === "truncation")) cuts.push(k)
    }
    const cline = new ContextManager(counter, { strategy: "half" })
    let clineCuts = 0
    for (let k = 1; k <= history.length; k += 2) {
      const r = cline.fit(history.slice(0, k), { model: model(30_000), now: k })
      if (r.edits.some((e) => e.kind === "truncation")) clineCuts++
    }
    expect(cuts.length).toBeGreaterThan(0)
    expect(cuts.length).toBeLessThan(clineCuts)
  })

  it("turn by turn, gives what a manager with no memory of earlier turns gives from the same change log", () => {
    // The manager carries its view, token total and dedup scans from turn to turn; a fresh manager
    // given a copy of the change log computes everything anew. Dedup, cuts and a caller that changes
    // the returned list in place all happen on the way.
    for (const strategy of ["auto", "half"] as const) {
      const manager = new ContextManager(counter, { strategy })
      const history = generateHistory({ messages: 361, fileLines: 30, seed: 11 })
      const kinds = new Set<string>()
      for (let k = 1; k <= history.length; k += 2) {
        const request = { model: model(24_000), now: k, system: "You are a coding agent." }
        const fresh = new ContextManager(counter, { strategy, changeLog: new ChangeLog(manager.changeLog.edits) })
        const expected = fresh.fit(history.slice(0, k), request)
        const r = manager.fit(history.slice(0, k), request)
        expect(r.edits).toEqual(expected.edits)
        expect(r.tokens).toEqual(expected.tokens)
        expect(r.messages).toEqual(expected.messages)
        for (const e of r.edits) kinds.add(e.kind)
        r.messages.push(r.messages[0]!)
      }
      expect(kinds).toContain("dedup")
      expect(kinds).toContain("truncation")
    }
  })

  it("reports an error when even the first exchange and the last message do not fit", () => {
    const manager = new ContextManager(counter)
    const history = rereads(1, 3000)
    const r = manager.fit(history, { model: model(2000, 100), now: 1 })
    expect(r.diagnostics.map((d) => d.code)).toContain("context-over-budget")
  })

  it("resolves a model id and passes on the catalog's diagnostics", () => {
    const manager = new ContextManager(counter)
    const r = manager.fit(rereads(1, 1), { model: "gpt-4o-2024-08-06", now: 1 })
    expect(r.model.canonicalId).toBe("gpt-4o")
    expect(r.diagnostics.map((d) => d.code)).toContain("model-resolved")
  })

  it("prunes old tool outputs when asked to", () => {
    const manager = new ContextManager(counter, { prune: { keepRecent: 500, minFree: 100 } })
    const history = generateHistory({ messages: 41, fileLines: 30 })
    const r = manager.fit(history, { model: model(9000, 100), now: 3 })
    expect(r.edits.some((e) => e.kind === "prune")).toBe(true)
  })

  it("compacts with the caller's model call into a summary with the fixed headings", async () => {
    const manager = new ContextManager(counter)
    const history = generateHistory({ messages: 41, fileLines: 5 })
    let seen = 0
    const edit = await manager.compact(
      history,
      async (messages, instructions) => {
        seen = messages.length
        expect(instructions).toContain("## Open items")
        return "## Goal\nRefactor the budget.\n## Progress\n- tests pass\n## Files\n- src/a.ts"
      },
      { now: 5, keepTail: 4 },
    )
    expect(edit?.kind).toBe("compaction")
    expect(seen).toBeGreaterThan(30)
    const view = manager.view(history)
    expect(view.map((m) => m.id).slice(0, 2)).toEqual(["m0", "m1"])
    const summary = view[2]!
    expect(summary.role).toBe("user")
    const text = JSON.stringify(summary.content)
    for (const h of [
      "## Task (verbatim)",
      "## Constraints",
      "## Progress",
      "## Decisions",
      "## Files",
      "## Open items",
    ])
      expect(text).toContain(h)
    expect(text).toContain("src/a.ts")
    expect(view[3]!.role).toBe("assistant")
    expect(view.at(-1)!.id).toBe(history.at(-1)!.id)
  })
})

describe("fit, last resort for an oversized tool result", () => {
  it("cuts a result larger than the whole window as an undoable edit, so the request fits", () => {
    const manager = new ContextManager(counter)
    const huge = Array.from({ length: 4000 }, (_, i) => `row ${i + 1} ${"words and more words ".repeat(6)}`).join("\n")
    const history: Message[] = [
      { id: "u0", role: "user", ts: 0, content: [{ type: "text", text: "task" }] },
      {
        id: "a1",
        role: "assistant",
        ts: 1,
        content: [{ type: "tool_use", id: "c1", name: "execute_command", input: {} }],
      },
      { id: "u2", role: "user", ts: 2, content: [{ type: "tool_result", toolUseId: "c1", content: huge }] },
    ]
    const result = manager.fit(history, { model: model(20_000), now: 10 })
    expect(result.diagnostics.map((d) => d.code)).not.toContain("context-over-budget")
    expect(result.diagnostics.map((d) => d.code)).toContain("context-result-clipped")
    expect(result.tokens.after).toBeLessThanOrEqual(result.tokens.budget.effective)
    const sent = result.messages[2]!.content[0]
    expect(sent).toMatchObject({ type: "tool_result", toolUseId: "c1" })
    expect(JSON.stringify(sent)).toMatch(/row 1 [\s\S]*were removed here[\s\S]*narrower command[\s\S]*row 4000 /)
    manager.changeLog.undo(9)
    expect(manager.view(history)[2]).toBe(history[2])
  })
})
