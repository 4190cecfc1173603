import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import type { ModelInfo } from "../models/types.js"
import { ContextManager } from "./context-manager.js"
import type { Block, Message } from "./message.js"
import { TokenCounter } from "./tokens.js"
import {
  cutEdits,
  headLength,
  InstructionIndex,
  plannedCut,
  TRUNCATION_NOTICE,
  type TruncationStrategy,
} from "./truncate.js"

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create()
})

const tiny = (contextWindow: number): ModelInfo => ({
  id: "tiny",
  provider: "test",
  family: "test",
  contextWindow,
  maxOutput: 100,
  tokenizer: "o200k",
  capabilities: { nativeTools: true, images: false, thinking: false },
  source: "test",
})

/** Random alternating histories: assistant turns with 0–3 tool calls, answered in the next user message. */
const historyArb = fc
  .array(
    fc.record({ calls: fc.integer({ min: 0, max: 3 }), words: fc.integer({ min: 1, max: 120 }), note: fc.boolean() }),
    {
      minLength: 1,
      maxLength: 40,
    },
  )
  .map((turns) => {
    const history: Message[] = [{ id: "m0", role: "user", ts: 0, content: [{ type: "text", text: "the task" }] }]
    turns.forEach((t, i) => {
      const uses: Block[] = Array.from({ length: t.calls }, (_, c) => ({
        type: "tool_use" as const,
        id: `c${i}_${c}`,
        name: "execute_command",
        input: { command: `echo ${i}` },
      }))
      history.push({
        id: `m${history.length}`,
        role: "assistant",
        ts: i,
        content: [{ type: "text", text: "ok ".repeat(t.words) }, ...uses],
      })
      const results: Block[] = uses.map((u) => ({
        type: "tool_result" as const,
        toolUseId: (u as { id: string }).id,
        content: "out ".repeat(t.words * 3),
      }))
      if (t.note || results.length === 0)
        results.push({ type: "text", text: `<project_instructions path="r${i}.md">rule ${i}</project_instructions>` })
      history.push({ id: `m${history.length}`, role: "user", ts: i, content: results })
    })
    return history
  })

function checkInvariants(history: readonly Message[], view: readonly Message[]): void {
  expect(view[0]!.id).toBe(history[0]!.id)
  if (history.length > 1) expect(view[1]!.id).toBe(history[1]!.id)
  expect(view.at(-1)!.id).toBe(history.at(-1)!.id)
  for (let i = 1; i < view.length; i++) expect(view[i]!.role).not.toBe(view[i - 1]!.role)
  view.forEach((m, i) => {
    for (const b of m.content) {
      if (b.type === "tool_result") {
        const prev = view[i - 1]
        expect(
          prev?.content.some((p) => p.type === "tool_use" && p.id === b.toolUseId),
          `result ${b.toolUseId}`,
        ).toBe(true)
      }
      if (b.type === "tool_use" && i < view.length - 1) {
        const next = view[i + 1]!
        expect(
          next.content.some((p) => p.type === "tool_result" && p.toolUseId === b.id),
          `call ${b.id}`,
        ).toBe(true)
      }
    }
  })
}

describe("truncation invariants (property)", () => {
  it.each<TruncationStrategy>(["auto", "half", "quarter", "lastTwo", "none"])(
    "%s keeps the first exchange and never splits a tool call from its result, turn after turn",
    (strategy) => {
      let cuts = 0
      fc.assert(
        fc.property(historyArb, fc.integer({ min: 600, max: 6000 }), (history, window) => {
          const manager = new ContextManager(counter, { strategy, reserve: 0.1 })
          let truncated = false
          for (let k = 1; k <= history.length; k += 2) {
            const prefix = history.slice(0, k)
            const r = manager.fit(prefix, { model: tiny(window), now: k })
            checkInvariants(prefix, r.messages)
            if (r.edits.some((e) => e.kind === "truncation")) {
              truncated = true
              cuts++
            }
            if (truncated) expect(JSON.stringify(r.messages[1]!.content)).toContain(TRUNCATION_NOTICE.slice(0, 40))
          }
        }),
        { numRuns: 40 },
      )
      expect(cuts).toBeGreaterThan(10)
    },
  )

  it("re-injects project instructions that were in a dropped range, once", () => {
    let reinjected = 0
    fc.assert(
      fc.property(historyArb, (history) => {
        const manager = new ContextManager(counter, { strategy: "lastTwo", reserve: 0.1 })
        const r = manager.fit(history, { model: tiny(300), now: 1 })
        const dropped = r.edits.some((e) => e.kind === "truncation")
        if (!dropped) return
        const all = (ms: readonly Message[]) =>
          ms.flatMap((m) =>
            m.content.flatMap((b) => (b.type === "text" ? [...b.text.matchAll(/rule \d+/g)].map((x) => x[0]) : [])),
          )
        const before = new Set(all(history))
        const after = all(r.messages)
        expect(new Set(after)).toEqual(before)
        expect(after.length).toBe(new Set(after).size)
        if (r.edits.some((e) => e.kind === "reinject")) reinjected++
      }),
      { numRuns: 60 },
    )
    expect(reinjected).toBeGreaterThan(5)
  })
})

describe("Cline's strategies", () => {
  const history: Message[] = Array.from({ length: 22 }, (_, i) => ({
    id: `m${i}`,
    role: i % 2 === 0 ? "user" : "assistant",
    ts: i,
    content: [{ type: "text", text: `message ${i}` }],
  }))
  it.each<[Exclude<TruncationStrategy, "auto">, number]>([
    ["half", 10],
    ["quarter", 15],
    ["lastTwo", 18],
    ["none", 19],
  ])(
    "%s removes %i of the 20 messages after the first exchange, ending on an assistant message",
    (strategy, removed) => {
      const cut = plannedCut(history, strategy)!
      expect(cut.start).toBe(2)
      expect(history[cut.end]!.role).toBe("assistant")
      expect(cut.end - cut.start + 1).toBe(removed % 2 === 0 ? removed : removed - 1)
    },
  )

  it("keeps a compaction summary with the head", () => {
    const withSummary = [history[0]!, history[1]!, { ...history[2]!, id: "summary-1-m2" }, ...history.slice(3)]
    expect(headLength(withSummary)).toBe(3)
  })
})

describe("instruction elements kept by view position", () => {
  // Views that grow, lose runs and get edited messages, with instructions in user texts, summaries and
  // assistant texts (which never count): a cut made with the kept index is the cut made by reading messages.
  const text = fc.constantFrom(
    "plain",
    '<project_instructions path="a">A</project_instructions>',
    '<instructions path="b">B</instructions> and <project_instructions path="a">A</project_instructions>',
    '<instructions path="c">C</instructions>',
  )
  const message = fc.record({
    role: fc.constantFrom("user", "assistant", "user"),
    summary: fc.boolean(),
    texts: fc.array(text, { minLength: 1, maxLength: 2 }),
  })
  it("gives the cut edits that reading every message gives (property)", () => {
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 4, maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { minLength: 1, maxLength: 8 }),
        (specs, steps) => {
          let view: Message[] = specs.map((m, i) => ({
            id: m.summary && m.role === "user" ? `summary-${i}` : `m${i}`,
            role: m.role as Message["role"],
            ts: i,
            content: m.texts.map((t) => ({ type: "text" as const, text: t })),
          }))
          const index = new InstructionIndex()
          for (const [a, b, edit] of steps) {
            const start = 2 + (a % Math.max(1, view.length - 3))
            const end = Math.min(view.length - 2, start + (b % 5))
            if (start <= end) {
              const cut = { start, end }
              const edits = cutEdits(view, cut, 1, undefined, index.follow(view))
              expect(edits).toEqual(cutEdits(view, cut, 1))
              // What is re-injected: elements of the cut's user messages (summaries left out) not kept elsewhere.
              const elements = (ms: Message[]) =>
                ms.flatMap((m) =>
                  m.role === "assistant"
                    ? []
                    : m.content.flatMap((b) =>
                        b.type === "text"
                          ? (b.text.match(/<(project_instructions|instructions)\b[^>]*>[\s\S]*?<\/\1>/g) ?? [])
                          : [],
                      ),
                )
              const kept = new Set(elements(view.slice(0, start).concat(view.slice(end + 1))))
              const cutOut = view.slice(start, end + 1).filter((m) => !m.id.startsWith("summary-"))
              const lost = [...new Set(elements(cutOut))].filter((t) => !kept.has(t))
              expect(edits.flatMap((e) => (e.kind === "reinject" ? [e.text] : []))[0] ?? "").toBe(
                cutOut.length ? lost.join("\n\n") : "",
              )
            }
            // The next view: a message edited in place, or a run left out.
            if (edit) {
              const at = a % view.length
              view = view.map((m, i) => (i === at ? { ...m, content: [...m.content, { type: "text", text: "x" }] } : m))
            } else if (start <= end) view = view.slice(0, start).concat(view.slice(end + 1))
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
