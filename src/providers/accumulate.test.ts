import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Accumulator, accumulate, accumulateAll } from "./accumulate.js"
import type { StreamEvent } from "./stream.js"

const run = (events: StreamEvent[], model?: string) => {
  const acc = new Accumulator({ ts: 100, model })
  for (const e of events) acc.push(e)
  return acc.finish()
}

describe("Accumulator", () => {
  it("joins deltas into blocks, starting a new block when the kind or index changes", () => {
    const [r] = run([
      { type: "start", id: "resp_1", model: "m-reported" },
      { type: "thinking", delta: "a", index: 0 },
      { type: "thinking", delta: "b", index: 0 },
      { type: "thinking", delta: "", signature: "s1", index: 0 },
      { type: "text", delta: "Hel", index: 1 },
      { type: "text", delta: "lo", index: 1 },
      { type: "text", delta: "Second", index: 2 },
      { type: "redacted_thinking", data: "xyz" },
      { type: "text", delta: "after" },
      { type: "usage", input: 1, output: 2, cacheRead: 3, cacheWrite: 4 },
      { type: "stop", reason: "end", raw: "end_turn" },
    ])
    expect(r!.message).toEqual({
      id: "resp_1",
      role: "assistant",
      ts: 100,
      content: [
        { type: "thinking", text: "ab", signature: "s1", model: "m-reported" },
        { type: "text", text: "Hello" },
        { type: "text", text: "Second" },
        { type: "redacted_thinking", data: "xyz", model: "m-reported" },
        { type: "text", text: "after" },
      ],
    })
    expect(r!.usage).toEqual({ input: 1, output: 2, cacheRead: 3, cacheWrite: 4 })
    expect(r).toMatchObject({ stopReason: "end", rawStopReason: "end_turn", complete: true, model: "m-reported" })
  })

  it("does not extend a thinking block that already has its signature", () => {
    const [r] = run(
      [
        { type: "thinking", delta: "one", signature: "sig1" },
        { type: "thinking", delta: "two" },
        { type: "thinking", delta: "", signature: "sig2" },
        { type: "stop", reason: "end" },
      ],
      "caller-model",
    )
    expect(r!.message.content).toEqual([
      { type: "thinking", text: "one", signature: "sig1", model: "caller-model" },
      { type: "thinking", text: "two", signature: "sig2", model: "caller-model" },
    ])
  })

  it("keeps tool calls where they started, with the signature and model of signed calls", () => {
    const [r] = run(
      [
        { type: "tool_call_start", id: "a", name: "read_file" },
        { type: "text", delta: "while calling" },
        { type: "tool_call_delta", id: "a", argsDelta: '{"path":"x"}' },
        { type: "tool_call_end", id: "a", input: { path: "x" }, signature: "gsig" },
        { type: "tool_call_end", id: "ghost", input: {} },
        { type: "stop", reason: "tool_use" },
      ],
      "gemini-3-pro",
    )
    expect(r!.message.content).toEqual([
      { type: "tool_use", id: "a", name: "read_file", input: { path: "x" }, signature: "gsig", model: "gemini-3-pro" },
      { type: "text", text: "while calling" },
    ])
    expect(r!.counters.orphans).toBe(1)
  })

  it("leaves out calls that never ended and marks the response incomplete without a stop", () => {
    const [r] = run([
      { type: "text", delta: "partial" },
      { type: "tool_call_start", id: "cut", name: "write_to_file" },
      { type: "tool_call_delta", id: "cut", argsDelta: '{"pa' },
      { type: "error", kind: "partial-call", message: "cut off", raw: '{"pa', toolCallId: "cut" },
    ])
    expect(r!.message.content).toEqual([{ type: "text", text: "partial" }])
    expect(r).toMatchObject({ stopReason: "error", complete: false, message: { id: "assistant-100" } })
    // The events never stopped: an error-level error says so next to the cut call's warning.
    expect(r!.errors.map((e) => e.kind)).toEqual(["partial-call", "truncated"])
  })

  it("holds events from any source to the definition of complete", () => {
    // A stop that is not `error` next to an error-level error is not complete.
    const [failed] = run([
      { type: "text", delta: "x" },
      { type: "error", kind: "network", message: "reset" },
      { type: "stop", reason: "end" },
    ])
    expect([failed!.complete, failed!.stopReason]).toEqual([false, "error"])
    // A stop `error` with no error gets one that says so; warnings alone do not make a response incomplete.
    const [bare] = run([{ type: "stop", reason: "error", raw: "weird" }])
    expect(bare!.errors).toEqual([{ type: "error", kind: "server", message: "the provider stopped with weird" }])
    const [warned] = run([
      { type: "error", kind: "invalid-arguments", message: "bad JSON" },
      { type: "stop", reason: "tool_use" },
    ])
    expect([warned!.complete, warned!.stopReason]).toEqual([true, "tool_use"])
  })

  it("drops a response the provider restarted, and splits responses that follow a stop", async () => {
    const events: StreamEvent[] = [
      { type: "start", id: "first" },
      { type: "text", delta: "abandoned" },
      { type: "start", id: "second" },
      { type: "text", delta: "kept" },
      { type: "stop", reason: "end" },
      { type: "start", id: "third" },
      { type: "text", delta: "next turn" },
      { type: "stop", reason: "end" },
    ]
    const all = await accumulateAll(events, { ts: 1 })
    expect(all.map((r) => [r.responseId, r.message.content, r.counters.restarts])).toEqual([
      ["second", [{ type: "text", text: "kept" }], 1],
      ["third", [{ type: "text", text: "next turn" }], 0],
    ])
    expect((await accumulate(events, { ts: 1, id: "mine" })).message.id).toBe("mine-1")
  })

  it("assembles the same message however text and arguments are split into deltas (property)", () => {
    const pieces = (s: string) =>
      fc.array(fc.nat({ max: s.length }), { maxLength: 6 }).map((cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b)
        const out: string[] = []
        let from = 0
        for (const p of [...points, s.length]) {
          out.push(s.slice(from, p))
          from = p
        }
        return out
      })
    const text = "Reading both files — ünïcode ✓"
    const thought = "Plan: read, then edit."
    fc.assert(
      fc.property(pieces(text), pieces(thought), (textParts, thoughtParts) => {
        const events: StreamEvent[] = [
          ...thoughtParts.map((delta): StreamEvent => ({ type: "thinking", delta })),
          { type: "thinking", delta: "", signature: "s" },
          ...textParts.map((delta): StreamEvent => ({ type: "text", delta })),
          { type: "stop", reason: "end" },
        ]
        const [r] = run(events)
        expect(r!.message.content).toEqual([
          { type: "thinking", text: thought, signature: "s" },
          { type: "text", text },
        ])
      }),
    )
  })
})
