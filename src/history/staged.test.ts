import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import type { ModelInfo } from "../models/types.js"
import { ContextManager } from "./context-manager.js"
import { MASK_PREFIX } from "./mask.js"
import type { Message } from "./message.js"
import { TokenCounter } from "./tokens.js"

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create()
})

const model = (contextWindow: number): ModelInfo => ({
  id: "test-model",
  provider: "openai",
  family: "gpt",
  contextWindow,
  maxOutput: 1000,
  tokenizer: "o200k",
  capabilities: { nativeTools: true, images: false, thinking: false },
  source: "test",
})

/** A session: the task, then `turns` tool calls with big results, and a second user request at `requestAt`. */
function session(turns: number, size: number, requestAt = -1): Message[] {
  const h: Message[] = [{ id: "m0", role: "user", ts: 0, content: [{ type: "text", text: "TASK: fix the parser." }] }]
  for (let i = 0; i < turns; i++) {
    const tool = i % 2 ? "execute_command" : "read_file"
    const input = i % 2 ? { command: `npm test -- ${i}` } : { path: `src/f${i}.ts` }
    h.push({
      id: `m${h.length}`,
      role: "assistant",
      ts: i,
      content: [{ type: "tool_use", id: `t${i}`, name: tool, input }],
    })
    const content: Message["content"] = [
      { type: "tool_result", toolUseId: `t${i}`, content: `output ${i} `.repeat(size), isError: i === 7 },
    ]
    if (i === requestAt) content.push({ type: "text", text: "ALSO: add a test for empty input." })
    h.push({ id: `m${h.length}`, role: "user", ts: i, content })
  }
  return h
}

const masked = (m: Message) =>
  m.content.filter(
    (b) => b.type === "tool_result" && typeof b.content === "string" && b.content.startsWith(MASK_PREFIX),
  ).length

describe("staged compaction", () => {
  it("masks old tool results first, keeping the last turns whole, with a stub that says how to get them back", () => {
    const manager = new ContextManager(counter, { compaction: { keepTurns: 3 } })
    const history = session(20, 300)
    const r = manager.fit(history, { model: model(25_000), now: 100 })
    expect(r.edits.length).toBeGreaterThan(0)
    expect(r.edits.every((e) => e.kind === "mask")).toBe(true)
    expect(r.diagnostics.map((d) => d.code)).toContain("context-masked")
    // The last three assistant turns keep their results.
    const users = r.messages.filter((m) => m.role === "user")
    expect(users.slice(-3).every((m) => masked(m) === 0)).toBe(true)
    expect(users.slice(1, -3).every((m) => masked(m) === 1)).toBe(true)
    const stub = JSON.stringify(r.messages[2]!.content)
    expect(stub).toContain('read_file (path \\"src/f0.ts\\")')
    expect(JSON.stringify(r.messages[4]!.content)).toContain("run the command again")
    expect(r.tokens.after).toBeLessThan(r.tokens.before / 2)
    // Undone, the view is the history again.
    manager.changeLog.undo(99)
    expect(manager.view(history)).toEqual(history)
  })

  it("does nothing below the threshold, and masks before the budget would force a cut", () => {
    const history = session(20, 300)
    const tokens = new ContextManager(counter).fit(history, { model: model(1_000_000), now: 1 }).tokens.before
    // A window whose budget (80% of it below 200k) sits just above the history: no truncation would happen.
    const window = Math.ceil((tokens * 1.1) / 0.8)
    expect(new ContextManager(counter).fit(history, { model: model(window), now: 1 }).edits).toEqual([])
    const staged = new ContextManager(counter, { compaction: { threshold: 0.5 } })
    expect(staged.fit(history, { model: model(window), now: 1 }).edits.map((e) => e.kind)).toContain("mask")
    const high = new ContextManager(counter, { compaction: { threshold: 1 } })
    expect(high.fit(history, { model: model(window), now: 1 }).edits).toEqual([])
  })

  it("asks for a summary when masking is not enough; the summary keeps the task and the latest request verbatim", async () => {
    const manager = new ContextManager(counter, { compaction: { keepTurns: 30, keepTail: 4 } })
    const history = session(40, 120, 10)
    const first = manager.fit(history, { model: model(16_000), now: 100 })
    expect(first.summaryDue).toBe(true)
    let asked: Message[] = []
    const edit = await manager.compact(
      history,
      async (messages, instructions) => {
        asked = messages
        expect(instructions).toContain("## Open items")
        return "## Progress\n- parser fixed\n## Decisions\n- keep the lexer"
      },
      { now: 100, model: model(16_000) },
    )
    expect(edit?.ts).toBe(101)
    expect(asked.at(-1)!.id).toBe("summary-request")
    const view = manager.view(history)
    const summary = JSON.stringify(view[2]!.content)
    expect(summary).toContain("TASK: fix the parser.")
    expect(summary).toContain("ALSO: add a test for empty input.")
    expect(summary).toContain("src/f2.ts (read)")
    expect(summary).toContain("output 7") // the last error
    expect(view.length).toBeLessThanOrEqual(2 + 1 + 5)
    const after = manager.fit(history, { model: model(16_000), now: 102 })
    expect(after.summaryDue).toBeFalsy()
    // The summary is its own change-log entry: undone alone, the masked view comes back.
    manager.changeLog.undo(100)
    expect(manager.view(history).length).toBe(history.length)
  })

  it("fits the summarizing request itself to the window: masks, then drops the oldest messages", () => {
    const history = session(150, 400)
    const manager = new ContextManager(counter)
    const plan = manager.planSummary(history, { model: model(6_000), keepTail: 4 })!
    expect(plan.masked).toBeGreaterThan(0)
    expect(plan.dropped).toBeGreaterThan(0)
    expect(plan.fits).toBe(true)
    expect(plan.tokens).toBeLessThanOrEqual(6_000 * 0.8)
    expect(JSON.stringify(plan.messages[0])).toContain("TASK: fix the parser.")
    const wide = manager.planSummary(history, { model: model(2_000_000), keepTail: 4 })!
    expect(wide.masked).toBe(0)
    expect(wide.messages.length).toBe(history.length - 4 + 1)
  })

  it("keeps the task and the latest request in the view over any number of crossings (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 30, max: 90 }), fc.integer({ min: 5, max: 60 }), async (turns, at) => {
        const manager = new ContextManager(counter, { compaction: { keepTurns: 4, keepTail: 4, target: 0.15 } })
        const full = session(turns, 150, at)
        let summaries = 0
        for (let k = 3; k <= full.length; k += 2) {
          const prefix = full.slice(0, k)
          const fit = manager.fit(prefix, { model: model(20_000), now: k })
          if (fit.summaryDue) {
            summaries++
            await manager.compact(prefix, async () => "## Progress\n- going", { now: k, model: model(20_000) })
          }
          const text = JSON.stringify(manager.fit(prefix, { model: model(20_000), now: k }).messages)
          expect(text).toContain("TASK: fix the parser.")
          if (at < Math.floor((k - 1) / 2)) expect(text).toContain("ALSO: add a test for empty input.")
        }
        expect(summaries).toBeGreaterThan(0)
      }),
      { numRuns: 6 },
    )
  })
})

describe("user requests", () => {
  it("finds typed requests and Cline-style <task> elements, not context elements, notes or agent texts", async () => {
    const { userRequests, AGENT_TEXTS } = await import("./requests.js")
    const m = (text: string, role: Message["role"] = "user"): Message => ({
      id: text,
      role,
      ts: 0,
      content: [{ type: "text", text }],
    })
    expect(
      userRequests([
        m("<environment_details>x</environment_details>"),
        m("<task>\nRefactor it.\n</task>\n<project_instructions>p</project_instructions>"),
        m("Do A.", "assistant"),
        m(AGENT_TEXTS.nudge),
        m("[promptline: note]"),
        m("Now do B."),
      ]),
    ).toEqual(["Refactor it.", "Now do B."])
  })
})

describe("calibration from reported usage", () => {
  it("keeps a moving ratio per model and applies it to fits that have no usage to go on", () => {
    const manager = new ContextManager(counter)
    const history = session(10, 50)
    const first = manager.fit(history, { model: model(200_000), now: 1 })
    expect(first.tokens.ratio).toBeUndefined()
    expect(manager.observe(first, Math.round(first.tokens.local * 1.2))?.ratio).toBeCloseTo(1.2, 3)
    const second = manager.observe(first, Math.round(first.tokens.local * 1.1))!
    expect(second.samples).toBe(2)
    expect(second.ratio).toBeCloseTo(1.2 + 0.3 * (1.1 - 1.2), 3)
    const calibrated = manager.fit(history, { model: model(200_000), now: 2 })
    expect(calibrated.tokens.ratio).toBeCloseTo(second.ratio, 6)
    expect(calibrated.tokens.before).toBe(Math.ceil(calibrated.tokens.local * second.ratio))
    // Reported usage stays the ground truth when it applies.
    const usage = manager.fit(history, { model: model(200_000), now: 3, usage: { promptTokens: 999, messages: 21 } })
    expect(usage.tokens.before).toBe(999)
    expect(manager.calibration("other-model")).toBeUndefined()
    // An estimate that ran high is not trusted to run lower.
    const low = new ContextManager(counter)
    const probe = low.fit(history, { model: model(200_000), now: 1 })
    low.observe(probe, Math.round(probe.tokens.local * 0.5))
    expect(low.fit(history, { model: model(200_000), now: 2 }).tokens.before).toBe(probe.tokens.local)
  })
})

describe("measuring a whole request and carrying calibrations over", () => {
  it("counts a request the way fit does, without edits, even when it is over the window", () => {
    const manager = new ContextManager(counter)
    const history = session(10, 50)
    const tools = [{ name: "read_file", description: "Reads a file.", parameters: { type: "object" } }]
    const fit = manager.fit(history, { model: model(200_000), now: 1, system: "Be brief.", tools })
    const measured = manager.measure(history, { model: model(200_000), system: "Be brief.", tools })
    expect(measured.tokens.local).toBe(fit.tokens.local)
    expect(measured.tokens.system + measured.tokens.tools).toBe(fit.tokens.system + fit.tokens.tools)
    expect(measured.tokens.system + measured.tokens.tools + measured.tokens.messages).toBe(measured.tokens.local)
    // A window far too small: fit would cut, measure counts everything and records no edit.
    const small = new ContextManager(counter)
    const whole = small.measure(history, { model: model(2_000), system: "Be brief.", tools })
    expect(whole.tokens.local).toBe(measured.tokens.local)
    expect(small.changeLog.edits).toHaveLength(0)
    expect(small.observe(whole, whole.tokens.local * 2)?.ratio).toBe(2)
  })

  it("starts from the calibrations it is given and lists them by model", () => {
    const first = new ContextManager(counter)
    const history = session(3, 20)
    const probe = first.measure(history, { model: model(200_000) })
    first.observe(probe, Math.round(probe.tokens.local * 1.3))
    const kept = first.calibrationsByModel()
    expect(Object.keys(kept)).toEqual(["test-model"])
    const resumed = new ContextManager(counter, { calibrations: kept })
    expect(resumed.calibration("test-model")).toEqual(kept["test-model"])
    const next = resumed.observe(probe, Math.round(probe.tokens.local * 1.3))!
    expect(next.samples).toBe(2)
    // A malformed entry is not taken.
    const bad = new ContextManager(counter, { calibrations: { x: { ratio: Number.NaN, samples: 1 } } })
    expect(bad.calibration("x")).toBeUndefined()
  })
})
