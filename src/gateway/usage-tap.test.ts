import { readFileSync } from "node:fs"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { UsageTap } from "./usage-tap.js"

const recording = readFileSync(
  new URL("../../test/fixtures/streams/anthropic/anthropic-text.chunks.txt", import.meta.url),
  "utf8",
)
  .split("\n")
  .filter((line) => line.trim() !== "")

const frame = (line: string) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`

/** The recorded answer as SSE bytes, its text deltas repeated `times` over (a long answer). */
function answer(times = 1): Buffer {
  const deltas = recording.filter((line) => line.includes('"content_block_delta"'))
  const lines = recording.flatMap((line) => (line.includes('"content_block_delta"') ? [] : [line]))
  const at = lines.findIndex((line) => line.includes('"content_block_stop"'))
  const long = [...lines.slice(0, at), ...Array.from({ length: times }, () => deltas).flat(), ...lines.slice(at)]
  return Buffer.from(long.map(frame).join(""))
}

/** Feeds `bytes` cut at `cuts`, letting the event loop turn between chunks (a long stream's copy is decoded then). */
async function tapOf(bytes: Buffer, cuts: number[], cut?: string) {
  const tap = new UsageTap("anthropic", "text/event-stream", { stream: true })
  let from = 0
  for (const at of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    tap.feed(bytes.subarray(from, at))
    from = at
    await new Promise((turn) => setImmediate(turn))
  }
  return tap.end(cut)
}

const WHOLE = { usage: { input: 12, output: 30, cacheRead: 0, cacheWrite: 0 }, stop: "end" }

describe("UsageTap: the facts of a forwarded answer's copy", () => {
  it("reads the same usage and stop however the stream is cut into chunks", async () => {
    const bytes = answer()
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: bytes.length }), { maxLength: 12 }), async (cuts) => {
        expect(await tapOf(bytes, cuts)).toEqual(WHOLE)
      }),
      { numRuns: 60 },
    )
  })

  it("reads a long stream (past the 64 KB that wait) as it reads a short one", async () => {
    const bytes = answer(400)
    expect(bytes.length).toBeGreaterThan(3 * 64 * 1024)
    const cuts = Array.from({ length: 40 }, (_, i) => Math.floor(((i + 1) * bytes.length) / 41))
    expect(await tapOf(bytes, cuts)).toEqual(WHOLE)
    expect(await tapOf(bytes, [])).toEqual(WHOLE)
  })

  it("tells a cut stream's failure, and the same facts when asked again", async () => {
    const bytes = answer()
    const tap = new UsageTap("anthropic", "text/event-stream", { stream: true })
    tap.feed(bytes.subarray(0, bytes.indexOf("message_delta")))
    const facts = tap.end("the upstream connection failed mid-answer")
    expect(facts.error).toEqual({ kind: "network", message: "the upstream connection failed mid-answer" })
    expect(facts.stop).toBe("error")
    expect(tap.end()).toBe(facts)
  })

  it("reads a whole JSON answer once it ended", () => {
    const body = {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text: "Done." }],
      stop_reason: "end_turn",
      usage: { input_tokens: 9, output_tokens: 2, cache_read_input_tokens: 4, cache_creation_input_tokens: 0 },
    }
    const tap = new UsageTap("anthropic", "application/json", {})
    const text = Buffer.from(JSON.stringify(body))
    tap.feed(text.subarray(0, 10))
    tap.feed(text.subarray(10))
    expect(tap.end()).toEqual({ usage: { input: 9, output: 2, cacheRead: 4, cacheWrite: 0 }, stop: "end" })
  })
})
