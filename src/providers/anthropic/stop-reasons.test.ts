import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { StopReason } from "../stream.js"
import { stopFromAnthropic, stopToAnthropic } from "./stop-reasons.js"

const OURS: Exclude<StopReason, "error">[] = ["end", "tool_use", "length", "refusal"]
const WIRE = [
  "end_turn",
  "stop_sequence",
  "pause_turn",
  "compaction",
  "tool_use",
  "max_tokens",
  "model_context_window_exceeded",
  "refusal",
]

describe("Anthropic stop reasons", () => {
  it("decodes each wire reason, and an unknown one as the end of the turn", () => {
    expect(WIRE.map(stopFromAnthropic)).toEqual(["end", "end", "end", "end", "tool_use", "length", "length", "refusal"])
    expect(stopFromAnthropic("something_new")).toBe("end")
    expect(stopFromAnthropic("constructor")).toBe("end")
  })

  it("encodes ours as the canonical wire reason, which decodes back to ours", () => {
    expect(OURS.map((r) => stopToAnthropic(r))).toEqual(["end_turn", "tool_use", "max_tokens", "refusal"])
    for (const r of OURS) expect(stopFromAnthropic(stopToAnthropic(r))).toBe(r)
  })

  it("keeps a raw wire reason exactly when it means the same as ours", () => {
    fc.assert(
      fc.property(fc.constantFrom(...OURS), fc.oneof(fc.constantFrom(...WIRE), fc.string()), (reason, raw) => {
        const wire = stopToAnthropic(reason, raw)
        expect(stopFromAnthropic(wire)).toBe(reason)
        expect(wire === raw).toBe(WIRE.includes(raw) && stopFromAnthropic(raw) === reason)
      }),
    )
  })
})
