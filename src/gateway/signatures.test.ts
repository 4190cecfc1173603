import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Message } from "../history/message.js"
import { SignatureSealer, sealEvents, sealSignature, unsealMessages, unsealSignature } from "./signatures.js"

describe("sealed signatures", () => {
  it("open to what was sealed, and are base64 text as every provider's signature is", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string(),
        fc.option(fc.string(), { nil: undefined }),
        (model, signature, id) => {
          const sealed = sealSignature({ model, signature, ...(id === undefined ? {} : { id }) })
          expect(sealed).toMatch(/^[A-Za-z0-9+/]+={0,2}$/)
          expect(unsealSignature(sealed)).toEqual({ model, signature, ...(id === undefined ? {} : { id }) })
        },
      ),
    )
  })

  it("leave a signature the gateway did not seal as the client sent it", () => {
    for (const text of ["EqQBCkYIBxgCKkA=", "skip_thought_signature_validator", "gAAAAABo", ""])
      expect(unsealSignature(text)).toBeUndefined()
    const message: Message = {
      id: "a",
      role: "assistant",
      ts: 0,
      content: [{ type: "thinking", text: "t", signature: "EqQBCkYIBxgCKkA=" }],
    }
    expect(unsealMessages([message])).toEqual([message])
  })

  it("mark thinking and calls with the model that signed them, and give a reasoning item its id back", () => {
    const events = sealEvents(
      [
        { type: "thinking", delta: "", signature: "enc", id: "rs_1" },
        { type: "tool_call_end", id: "c1", input: {}, signature: "sig" },
        { type: "text", delta: "x" },
      ],
      "gpt-5",
    )
    const signatureOf = (i: number) => (events[i] as { signature: string }).signature
    const message: Message = {
      id: "a",
      role: "assistant",
      ts: 0,
      content: [
        { type: "thinking", text: "", signature: signatureOf(0) },
        { type: "tool_use", id: "c1", name: "f", input: {}, signature: signatureOf(1) },
      ],
    }
    expect(unsealMessages([message])[0]!.content).toEqual([
      { type: "thinking", text: "", signature: "enc", model: "gpt-5", id: "rs_1" },
      { type: "tool_use", id: "c1", name: "f", input: {}, signature: "sig", model: "gpt-5" },
    ])
    expect(events[2]).toEqual({ type: "text", delta: "x" })
  })
})

describe("the signature sealer of a stream", () => {
  it("ends thinking an upstream left unsigned with a sealed empty signature, before what follows it", () => {
    const sealer = new SignatureSealer("deepseek-chat")
    const out = [
      ...sealer.push([{ type: "thinking", delta: "Read ", index: 0 }]),
      ...sealer.push([
        { type: "thinking", delta: "it.", index: 0 },
        { type: "usage", input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
      ]),
      ...sealer.push([{ type: "text", delta: "Done", index: 1 }]),
    ]
    expect(out.map((e) => e.type)).toEqual(["thinking", "thinking", "usage", "thinking", "text"])
    const closing = out[3] as { delta: string; index: number; signature: string }
    expect([closing.delta, closing.index]).toEqual(["", 0])
    expect(unsealSignature(closing.signature)).toEqual({ model: "deepseek-chat", signature: "" })
  })

  it("adds nothing to thinking the upstream signed", () => {
    const sealer = new SignatureSealer("claude-sonnet-4-5")
    const out = sealer.push([
      { type: "thinking", delta: "Read it.", index: 0 },
      { type: "thinking", delta: "", index: 0, signature: "sig" },
      { type: "text", delta: "Done", index: 1 },
    ])
    expect(out.map((e) => e.type)).toEqual(["thinking", "thinking", "text"])
  })
})
