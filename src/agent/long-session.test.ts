import { afterAll, describe, expect, it } from "vitest"
import {
  LONG_SESSION_REQUESTS,
  LONG_SESSION_STARTS,
  type LongSessionRun,
  runLongSession,
} from "../../test/fixtures/agent/long-session.js"

const runs: LongSessionRun[] = []
afterAll(async () => {
  for (const r of runs.splice(0)) await r.server.close()
})

/** The latest user request when the n-th agent request (0-based, summaries left out) was made. */
const latestAt = (n: number) => LONG_SESSION_REQUESTS[LONG_SESSION_STARTS.filter((s) => s <= n).length - 1]!

describe("a 300-turn session with staged compaction", () => {
  it("keeps the original task and the latest request in every request, across repeated crossings", async () => {
    const run = await runLongSession({ reserve: 150_000, compaction: {} })
    runs.push(run)
    const { server, results, manager } = run
    expect(results.map((r) => r.reason)).toEqual(["max_turns", "max_turns", "completed"])
    server.assertComplete()
    const requests = server.requests.filter((r) => r.outcome === "answered")
    const turns = requests.filter((r) => !r.summary)
    const summaries = requests.filter((r) => r.summary)
    expect(turns).toHaveLength(300)
    // Each crossing of the threshold is a masking round or a summary: at least four of them.
    const rounds = new Set(manager.changeLog.edits.filter((e) => e.kind === "mask").map((e) => e.ts))
    expect(rounds.size + summaries.length).toBeGreaterThanOrEqual(4)
    expect(summaries.length).toBeGreaterThan(0)
    expect(results.reduce((n, r) => n + r.summaries, 0)).toBe(summaries.length)
    turns.forEach((r, n) => {
      const body = JSON.stringify(r.body)
      expect(body, `request ${n}`).toContain(LONG_SESSION_REQUESTS[0])
      expect(body, `request ${n}`).toContain(latestAt(n))
    })
    for (const r of summaries) expect(JSON.stringify(r.body)).toContain(LONG_SESSION_REQUESTS[0])
    // Nothing was truncated: staged compaction kept the view under the budget.
    expect(manager.changeLog.edits.some((e) => e.kind === "truncation")).toBe(false)
  }, 240_000)

  it("falls back to truncation when the summary fails, says so, and waits before asking again", async () => {
    const run = await runLongSession({ reserve: 150_000, compaction: {} }, true)
    runs.push(run)
    const { results, manager, events, refused } = run
    expect(results.map((r) => r.reason)).toEqual(["max_turns", "max_turns", "completed"])
    expect(results.reduce((n, r) => n + r.summaries, 0)).toBe(0)
    expect(refused).toBeGreaterThan(0)
    const notes = events.filter((e) => e.type === "notice" && e.message.includes("the summary failed"))
    expect(notes).toHaveLength(refused)
    // At most one try per five turns.
    expect(refused).toBeLessThanOrEqual(Math.ceil(300 / 5))
    expect(manager.changeLog.edits.some((e) => e.kind === "mask")).toBe(true)
    const turns = run.server.requests.filter((r) => r.outcome === "answered")
    expect(turns).toHaveLength(300)
    for (const r of turns) expect(JSON.stringify(r.body)).toContain(LONG_SESSION_REQUESTS[0])
  }, 240_000)
})

describe("a 300-turn session with provider-side compaction (Anthropic, simulated by the replay server)", () => {
  it("the provider compacts at its trigger, the task and the latest request stay in every request", async () => {
    const run = await runLongSession({ reserve: 100_000 }, false, { trigger: 50_000 })
    runs.push(run)
    const { server, results, manager } = run
    expect(results.map((r) => r.reason)).toEqual(["max_turns", "max_turns", "completed"])
    server.assertComplete()
    const turns = server.requests.filter((r) => r.outcome === "answered")
    expect(turns).toHaveLength(300)
    expect(turns.some((r) => r.summary)).toBe(false)
    // The session crosses the trigger several times; each crossing is one compaction.
    expect(turns.filter((r) => r.compacted).length).toBeGreaterThanOrEqual(4)
    turns.forEach((r, n) => {
      const body = JSON.stringify(r.body)
      expect(body, `request ${n}`).toContain(LONG_SESSION_REQUESTS[0])
      expect(body, `request ${n}`).toContain(latestAt(n))
    })
    // The provider's compaction kept every request in the window: nothing was cut.
    expect(manager.changeLog.edits.some((e) => e.kind === "truncation")).toBe(false)
  }, 240_000)
})
