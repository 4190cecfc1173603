import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { OutputBuffer } from "./output-buffer.js"

describe("OutputBuffer", () => {
  it("keeps everything under the limit", () => {
    const buffer = new OutputBuffer(100)
    buffer.push(Buffer.from("hello "))
    buffer.push(Buffer.from("world"))
    expect(buffer.text()).toBe("hello world")
    expect(buffer.omitted).toBe(0)
  })

  it("keeps the exact head and tail of any stream, and counts the rest", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 50 }), { maxLength: 30 }),
        fc.integer({ min: 2, max: 120 }),
        (chunks, limit) => {
          const buffer = new OutputBuffer(limit)
          for (const chunk of chunks) buffer.push(Buffer.from(chunk))
          const all = Buffer.concat(chunks.map((c) => Buffer.from(c)))
          const kept = Math.min(all.length, limit)
          expect(buffer.omitted).toBe(all.length - kept)
          if (buffer.omitted === 0) expect(buffer.text()).toBe(all.toString("utf8"))
          else {
            const head = all.subarray(0, Math.floor(limit / 2)).toString("utf8")
            const tail = all.subarray(all.length - (limit - Math.floor(limit / 2))).toString("utf8")
            expect(buffer.text()).toBe(
              `${head}\n\n[… ${buffer.omitted} bytes of output omitted; the start and the end are shown …]\n\n${tail}`,
            )
          }
        },
      ),
    )
  })
})
