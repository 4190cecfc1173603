import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { SseFramer, type SseMessage } from "./sse.js"

function frame(chunks: (string | Uint8Array)[]): { messages: SseMessage[]; comments: number } {
  const messages: SseMessage[] = []
  const framer = new SseFramer((m) => messages.push({ ...m }))
  for (const c of chunks) framer.feed(typeof c === "string" ? new TextEncoder().encode(c) : c)
  framer.end()
  return { messages, comments: framer.comments }
}

describe("SseFramer", () => {
  it("reads LF, CRLF and CR line ends, comments, event names and multi-line data", () => {
    const { messages, comments } = frame([
      ": hello\r\nevent: a\r\ndata: one\r\n\r\n",
      "data: two\rdata: lines\r\r",
      'event: b\ndata:{"x":1}\n\n',
    ])
    expect(comments).toBe(1)
    expect(messages.map((m) => [m.event, m.data])).toEqual([
      ["a", "one"],
      [undefined, "two\nlines"],
      ["b", '{"x":1}'],
    ])
  })

  it("strips a byte-order mark", () => {
    expect(frame(["\uFEFFdata: x\n\n"]).messages.map((m) => m.data)).toEqual(["x"])
  })

  it("delivers a last event that lacks its blank line, and drops a line cut off mid-way", () => {
    expect(frame(["data: a\n\ndata: b\n"]).messages.map((m) => m.data)).toEqual(["a", "b"])
    expect(frame(["data: a\r\n\r\ndata: b\r"]).messages.map((m) => m.data)).toEqual(["a", "b"])
    expect(frame(['data: a\n\ndata: {"cut']).messages.map((m) => m.data)).toEqual(["a"])
  })

  it("gives the same events however the bytes are split, UTF-8 and CRLF included (property)", () => {
    const event = fc
      .record({
        name: fc.option(fc.constantFrom("message_start", "ping", "x"), { nil: undefined }),
        data: fc.string({ unit: "grapheme", maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, " ")),
        eol: fc.constantFrom("\n", "\r\n", "\r"),
      })
      .map(({ name, data, eol }) => `${name ? `event: ${name}${eol}` : ""}data: ${data}${eol}${eol}`)
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (events, cuts) => {
          const bytes = new TextEncoder().encode(events.join(""))
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
          const parts: Uint8Array[] = []
          let from = 0
          for (const p of [...points, bytes.length]) {
            parts.push(bytes.subarray(from, p))
            from = p
          }
          expect(frame(parts).messages).toEqual(frame([bytes]).messages)
          expect(frame(parts).messages).toHaveLength(events.length)
        },
      ),
      { numRuns: 300 },
    )
  })
})
