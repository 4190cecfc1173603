/**
 * The gateway's tool search loop over a request deferring the tool-search fixtures' MCP tools, with the upstream's rounds scripted as
 * stream events: what the client is shown, what each upstream round is asked, and the bounds.
 */
import { describe, expect, it } from "vitest"
import { decodeAnthropicRequest } from "../../providers/anthropic/request-decode.js"
import type { StreamEvent } from "../../providers/stream.js"
import { SEARCH_TOOLS_NAME } from "../../tools/search/index.js"
import { type RoundRequest, searchLoop, type UpstreamRound } from "./loop.js"
import { planDeferredTools } from "./plan.js"
import { deferredToolList, fixtureTools } from "./test-helpers.js"

const request = (messages: unknown[] = [{ role: "user", content: "Open an issue about the crash." }]) =>
  decodeAnthropicRequest({ model: "claude-sonnet-4-5", max_tokens: 1000, tools: deferredToolList(), messages })

/** A round of the upstream's answer: optional text, then calls, then the stop. */
function answer(round: number, text: string, calls: { name: string; input: unknown }[]): StreamEvent[] {
  const out: StreamEvent[] = [{ type: "start", id: `chatcmpl-${round}` }]
  if (text) out.push({ type: "text", delta: text })
  calls.forEach((c, i) => {
    const id = `call_${round}_${i}`
    out.push({ type: "tool_call_start", id, name: c.name })
    out.push({ type: "tool_call_delta", id, argsDelta: JSON.stringify(c.input) })
    out.push({ type: "tool_call_end", id, input: c.input })
  })
  out.push({ type: "usage", input: 100 * (round + 1), output: 10, cacheRead: 0, cacheWrite: 0 })
  out.push({ type: "stop", reason: calls.length > 0 ? "tool_use" : "end" })
  return out
}

/** An upstream that answers round `n` with `script(n, request)`, keeping every request it was asked. */
function scripted(script: (round: number, request: RoundRequest) => StreamEvent[]) {
  const asked: RoundRequest[] = []
  const call: UpstreamRound = async function* (req, round) {
    asked.push(req)
    // Two batches, as a stream decodes them.
    const events = script(round, req)
    yield events.slice(0, 2)
    yield events.slice(2)
  }
  return { asked, call }
}

async function run(script: (round: number, request: RoundRequest) => StreamEvent[], rounds?: number, req = request()) {
  const plan = planDeferredTools(req, "search")!
  const upstream = scripted(script)
  const events: StreamEvent[] = []
  for await (const batch of searchLoop({
    request: plan.request,
    search: plan.search!,
    call: upstream.call,
    ...(rounds ? { rounds } : {}),
  }))
    events.push(...batch)
  return { events, asked: upstream.asked, plan }
}

const names = (req: RoundRequest) => req.prompt.tools.map((t) => t.name)

describe("the gateway's tool search loop", () => {
  it("answers the upstream's search itself, shows it to the client, then the found tool is called", async () => {
    const { events, asked } = await run((round) =>
      round === 0
        ? answer(0, "Let me find a tool.", [{ name: SEARCH_TOOLS_NAME, input: { query: "create an issue on github" } }])
        : answer(1, "", [{ name: "mcp__github__create_issue", input: { owner: "o", repo: "r", title: "Crash" } }]),
    )
    expect(asked).toHaveLength(2)
    // Round 1: the client's loaded tool and the search tool, no deferred definition.
    expect(names(asked[0]!)).toEqual(["Bash", SEARCH_TOOLS_NAME])
    // Round 2: the found tools are offered, and the search is in the history, as a tool search block.
    const search = events.find((e) => e.type === "tool_search")!
    expect(search).toMatchObject({ name: "tool_search_tool_bm25", input: { query: "create an issue on github" } })
    const found = (search as { found: string[] }).found
    expect(found).toContain("mcp__github__create_issue")
    expect(names(asked[1]!)).toEqual(["Bash", ...found.slice().sort(byFixtureOrder), SEARCH_TOOLS_NAME])
    const last = asked[1]!.messages.at(-1)!
    expect(last.role).toBe("assistant")
    expect(last.content.map((b) => b.type)).toEqual(["text", "tool_search"])
    // The client: one start, the text, the search, the found tool's call, one stop, usage added up.
    expect(events.filter((e) => e.type === "start")).toHaveLength(1)
    expect(events.map((e) => e.type)).toEqual([
      "start",
      "text",
      "tool_search",
      "usage",
      "tool_call_start",
      "tool_call_delta",
      "tool_call_end",
      "usage",
      "stop",
    ])
    expect(events.some((e) => e.type === "tool_call_start" && e.name === SEARCH_TOOLS_NAME)).toBe(false)
    expect(events.filter((e) => e.type === "usage").at(-1)).toMatchObject({ input: 300, output: 20 })
    expect(events.at(-1)).toEqual({ type: "stop", reason: "tool_use" })
  })

  it("a search with no result says so to the model, which goes on without a tool", async () => {
    const { events, asked } = await run((round, req) =>
      round === 0
        ? answer(0, "", [{ name: SEARCH_TOOLS_NAME, input: { query: "qqqq zzzz" } }])
        : answer(1, `Nothing fits (${req.prompt.tools.length} tools).`, []),
    )
    expect(events.find((e) => e.type === "tool_search")).toMatchObject({ found: [] })
    expect(names(asked[1]!)).toEqual(["Bash", SEARCH_TOOLS_NAME])
    expect(events.at(-1)).toEqual({ type: "stop", reason: "end" })
    expect(events.filter((e) => e.type === "text").map((e) => (e as { delta: string }).delta)).toEqual([
      "Nothing fits (2 tools).",
    ])
  })

  it("stops searching at the round limit: the last round is offered no search tool", async () => {
    const { events, asked } = await run(
      (round, req) =>
        names(req).includes(SEARCH_TOOLS_NAME)
          ? answer(round, "", [{ name: SEARCH_TOOLS_NAME, input: { query: `take a screenshot ${round}` } }])
          : answer(round, "I could not decide.", []),
      3,
    )
    expect(asked).toHaveLength(3)
    expect(asked.map((r) => names(r).includes(SEARCH_TOOLS_NAME))).toEqual([true, true, false])
    expect(events.filter((e) => e.type === "tool_search")).toHaveLength(2)
    expect(events.at(-1)).toEqual({ type: "stop", reason: "end" })
    // Found tools stay offered in the last round.
    expect(names(asked[2]!)).toContain("mcp__playwright__browser_take_screenshot")
  })

  it("a round that calls a client tool besides searching ends the answer with that call", async () => {
    const { events, asked } = await run(() =>
      answer(0, "", [
        { name: SEARCH_TOOLS_NAME, input: { query: "list slack channels" } },
        { name: "Bash", input: { command: "ls" } },
      ]),
    )
    expect(asked).toHaveLength(1)
    expect(events.map((e) => e.type)).toEqual([
      "start",
      "tool_search",
      "tool_call_start",
      "tool_call_delta",
      "tool_call_end",
      "usage",
      "stop",
    ])
    expect(events.at(-1)).toEqual({ type: "stop", reason: "tool_use" })
  })

  it("an upstream error ends the answer as it came, without another round", async () => {
    const { events, asked } = await run(() => [
      { type: "start" },
      { type: "tool_call_start", id: "c1", name: SEARCH_TOOLS_NAME },
      { type: "tool_call_end", id: "c1", input: { query: "github" } },
      { type: "error", kind: "server", message: "upstream failed" },
    ])
    expect(asked).toHaveLength(1)
    expect(events.at(-1)).toMatchObject({ type: "error", message: "upstream failed" })
  })
})

/** Sorts tool names in the order the client listed them (the fixture servers', each server's tools in its order). */
const order = fixtureTools().map((t) => t.name)
function byFixtureOrder(a: string, b: string): number {
  return order.indexOf(a) - order.indexOf(b)
}
