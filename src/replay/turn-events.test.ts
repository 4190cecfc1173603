import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { resolveTurn } from "./resolve.js"
import { turnEvents } from "./turn-events.js"

const options = { id: "msg_1", model: "m", chunkSize: 7, thinking: true }

describe("turnEvents", () => {
  it("joins back to the turn's thinking, text and arguments, and ends with usage and stop", () => {
    fc.assert(
      fc.property(fc.string(), fc.option(fc.string(), { nil: undefined }), fc.nat(20), (text, thinking, size) => {
        const turn = resolveTurn(
          {
            text,
            ...(thinking === undefined ? {} : { thinking }),
            toolCalls: [{ name: "read", input: { path: text } }],
          },
          0,
          { dialect: "native", callIdPrefix: "c_", requestChars: 10 },
        )
        const events = turnEvents(turn, { ...options, chunkSize: size + 1 })
        const joined = (type: string) =>
          events.flatMap((e) => (e.type === type && "delta" in e ? [e.delta] : [])).join("")
        expect(joined("text")).toBe(text)
        expect(joined("thinking")).toBe(thinking ?? "")
        const args = events.flatMap((e) => (e.type === "tool_call_delta" ? [e.argsDelta] : [])).join("")
        expect(JSON.parse(args)).toEqual({ path: text })
        expect(events.slice(-2).map((e) => e.type)).toEqual(["usage", "stop"])
      }),
    )
  })

  it("puts the signature on the last thinking delta and leaves thinking out when not asked for", () => {
    const turn = resolveTurn({ thinking: "a b c d e f", text: "hi" }, 2, {
      dialect: "native",
      callIdPrefix: "c_",
      requestChars: 10,
    })
    const thinking = turnEvents(turn, { ...options, chunkSize: 2 }).filter((e) => e.type === "thinking")
    expect(thinking.at(-1)).toMatchObject({ signature: turn.signature })
    expect(thinking.slice(0, -1).every((e) => !("signature" in e))).toBe(true)
    expect(turnEvents(turn, { ...options, thinking: false }).some((e) => e.type === "thinking")).toBe(false)
  })
})
