import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { accumulate } from "../providers/accumulate.js"
import type { StreamEvent } from "../providers/stream.js"
import { lastGeneration, RESTART_ERROR, RestartGuard } from "./answer-guard.js"

/** One generation's events: some text, maybe a call (cut or ended), usage, and a stop when `finished`. */
function generation(finished: fc.Arbitrary<boolean>) {
  return fc
    .record({
      id: fc.constantFrom("msg_a", "msg_b", "msg_c"),
      text: fc.array(fc.constantFrom("Hel", "lo", "", " wor", "ld"), { maxLength: 3 }),
      call: fc.constantFrom("none", "cut", "ended"),
      finished,
    })
    .map(({ id, text, call, finished }) => {
      const events: StreamEvent[] = [{ type: "start", id }]
      for (const delta of text) events.push({ type: "text", delta })
      if (call !== "none") {
        events.push({ type: "tool_call_start", id: `${id}_call`, name: "read_file" })
        events.push({ type: "tool_call_delta", id: `${id}_call`, argsDelta: '{"path":"a' })
        if (call === "ended") {
          events.push({ type: "tool_call_delta", id: `${id}_call`, argsDelta: '.ts"}' })
          events.push({ type: "tool_call_end", id: `${id}_call`, input: { path: "a.ts" } })
        } else events.push({ type: "error", kind: "partial-call", message: "cut", toolCallId: `${id}_call`, raw: "{" })
      }
      events.push({ type: "usage", input: 3, output: text.length, cacheRead: 0, cacheWrite: 0 })
      if (finished) events.push({ type: "stop", reason: call === "ended" ? "tool_use" : "end" })
      return events
    })
}

/** One body: generations the upstream abandoned by restarting (a spliced stream), then the last one. */
const spliced = fc
  .tuple(fc.array(generation(fc.constant(false)), { maxLength: 2 }), generation(fc.boolean()))
  .map(([abandoned, last]) => [...abandoned.flat(), ...last])

const hasContent = (events: readonly StreamEvent[]) =>
  events.some(
    (e) =>
      (e.type === "text" && e.delta !== "") ||
      e.type === "tool_call_start" ||
      e.type === "tool_call_delta" ||
      e.type === "tool_call_end",
  )

describe("a restarted (spliced) upstream answer", () => {
  it("whole: the events kept assemble to the message promptline's accumulator keeps (property)", async () => {
    await fc.assert(
      fc.asyncProperty(spliced, async (events) => {
        const kept = lastGeneration(events)
        const [whole, last] = [await accumulate(events, { ts: 0 }), await accumulate(kept, { ts: 0 })]
        expect(last.message.content).toEqual(whole.message.content)
        expect([last.complete, last.stopReason]).toEqual([whole.complete, whole.stopReason])
        // A client that knows nothing of restarts, reading the kept events, sees the accumulated text and calls.
        const text = (list: readonly StreamEvent[]) =>
          list.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("")
        expect(text(kept)).toBe(whole.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(""))
        expect(kept.flatMap((e) => (e.type === "tool_call_end" ? [e.id] : []))).toEqual(
          whole.message.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])),
        )
        // Nothing of an abandoned generation is left: at most one start, unless the restart came before content.
        const starts = kept.filter((e) => e.type === "start").length
        if (starts > 1)
          expect(
            hasContent(
              kept.slice(
                0,
                kept.findLastIndex((e) => e.type === "start"),
              ),
            ),
          ).toBe(false)
      }),
    )
  })

  it("streamed: a restart after content ends the answer with an error, one before content passes (property)", () => {
    fc.assert(
      fc.property(spliced, fc.array(fc.nat(40), { maxLength: 4 }), (events, cuts) => {
        // The same events in batches of any size.
        const points = [...new Set(cuts.map((c) => c % (events.length + 1)))].sort((a, b) => a - b)
        const guard = new RestartGuard()
        const shown: StreamEvent[] = []
        let from = 0
        for (const point of [...points, events.length]) {
          shown.push(...guard.push(events.slice(from, point)))
          from = point
        }
        // A start while a generation is open, once anything of the answer was shown: the error, then nothing.
        let open = false
        let restartAfterContent = -1
        events.forEach((e, i) => {
          if (restartAfterContent >= 0) return
          if (e.type === "start" && open && hasContent(events.slice(0, i))) restartAfterContent = i
          else if (e.type === "start") open = true
          else if (e.type === "stop") open = false
        })
        if (restartAfterContent < 0) expect(shown).toEqual(events)
        else expect(shown).toEqual([...events.slice(0, restartAfterContent), RESTART_ERROR])
      }),
    )
  })

  it("the recorded Anthropic splice: whole keeps the second message, streamed ends with the error", () => {
    const events: StreamEvent[] = [
      { type: "start", id: "msg_first" },
      { type: "thinking", delta: "I will call the tool.", index: 0 },
      { type: "thinking", delta: "", signature: "sig-first", index: 0 },
      { type: "tool_call_start", id: "toolu_first", name: "test-tool" },
      { type: "tool_call_delta", id: "toolu_first", argsDelta: '{"value":"Spark' },
      { type: "error", kind: "partial-call", message: "cut", toolCallId: "toolu_first", raw: '{"value":"Spark' },
      { type: "start", id: "msg_second" },
      { type: "tool_call_start", id: "toolu_second", name: "test-tool" },
      { type: "tool_call_delta", id: "toolu_second", argsDelta: '{"value":"Sparkle Day"}' },
      { type: "tool_call_end", id: "toolu_second", input: { value: "Sparkle Day" } },
      { type: "stop", reason: "tool_use" },
    ]
    expect(lastGeneration(events)).toEqual(events.slice(6))
    expect(new RestartGuard().push(events)).toEqual([...events.slice(0, 6), RESTART_ERROR])
  })
})
