import { describe, expect, it } from "vitest"
import { GatewayError } from "./errors.js"
import { SocketConversation } from "./socket-conversation.js"

const call = { type: "function_call", call_id: "c1", name: "read_file", arguments: "{}" }

describe("a WebSocket connection's conversation", () => {
  it("rebuilds a continuation: the held items, then the new input; transport fields left out", () => {
    const conversation = new SocketConversation(1 << 20)
    const first = conversation.rebuild({ type: "response.create", model: "m", input: "hi", stream: true })
    expect(first.body).toEqual({ model: "m", input: "hi" })
    conversation.remember("resp_1", first.items, [call])
    const output = { type: "function_call_output", call_id: "c1", output: "" }
    const next = conversation.rebuild({
      type: "response.create",
      model: "m",
      previous_response_id: "resp_1",
      generate: true,
      input: [output],
    })
    expect(next.previous).toBe("resp_1")
    expect(next.body).toEqual({ model: "m", input: [{ type: "message", role: "user", content: "hi" }, call, output] })
  })

  it("holds only the most recent response, within its byte limit, and forgets an evicted one", () => {
    const conversation = new SocketConversation(200)
    conversation.remember("resp_1", [{ role: "user", content: "short" }], [])
    conversation.remember("resp_2", [{ role: "user", content: "also short" }], [])
    const ask = (id: string) => () => conversation.rebuild({ model: "m", previous_response_id: id, input: "x" })
    expect(ask("resp_1")).toThrow(GatewayError)
    expect(ask("resp_2")().items).toHaveLength(2)
    conversation.evict("resp_2")
    expect(ask("resp_2")).toThrow("Previous response with id 'resp_2' not found.")
    conversation.remember("resp_3", [{ role: "user", content: "x".repeat(300) }], [])
    expect(conversation.held).toBeUndefined()
  })

  it("names the error OpenAI names", () => {
    const conversation = new SocketConversation(1000)
    try {
      conversation.rebuild({ model: "m", previous_response_id: "resp_x", input: "x" })
      expect.unreachable()
    } catch (error) {
      expect((error as GatewayError).status).toBe(400)
      expect((error as GatewayError).input).toMatchObject({
        code: "previous_response_not_found",
        param: "previous_response_id",
      })
    }
  })
})
