import { setImmediate as tick } from "node:timers/promises"
import { describe, expect, it } from "vitest"
import type { StreamEvent } from "../../providers/stream.js"
import { batchesOf } from "./batches.js"

const text = (delta: string): StreamEvent[] => [{ type: "text", delta }]

describe("batchesOf", () => {
  it("hands out every batch in order, those pushed at once and those pushed later, then the result", async () => {
    const { batches, result } = batchesOf(async (each) => {
      each(text("a"))
      each(text("b"))
      await tick()
      each(text("c"))
      await tick()
      return 7
    })
    const seen: StreamEvent[][] = []
    for await (const batch of batches) seen.push(batch)
    expect(seen).toEqual([text("a"), text("b"), text("c")])
    expect(await result).toBe(7)
  })

  it("a reader that fails: the batches before, then its error", async () => {
    const { batches } = batchesOf(async (each) => {
      each(text("a"))
      await tick()
      throw new Error("cut")
    })
    const seen: StreamEvent[][] = []
    await expect(
      (async () => {
        for await (const batch of batches) seen.push(batch)
      })(),
    ).rejects.toThrow("cut")
    expect(seen).toEqual([text("a")])
  })
})
