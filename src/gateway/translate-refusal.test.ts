/**
 * A client's body that translation cannot send on is the client's bad request, in its own shape, over both
 * transports: here a Responses client asks for compaction below the threshold Anthropic accepts.
 */
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Matrix, sdkClients, startMatrix } from "./test-helpers/matrix.js"

let matrix: Matrix
beforeAll(async () => {
  matrix = await startMatrix([{ text: "never asked for" }])
})
afterAll(async () => {
  await matrix?.close()
})

const body = {
  model: "to-anthropic",
  input: "Summarize the repository.",
  context_management: [{ type: "compaction", compact_threshold: 1000 }],
}

describe("translate mode: a body the upstream's format cannot take", () => {
  it("answers 400 in the client's shape naming the option, and asks no upstream", async () => {
    const before = matrix.replay.requests.length
    const error = await sdkClients(matrix.gateway)
      .openai.responses.create(body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    const e = error as InstanceType<typeof OpenAI.BadRequestError>
    expect(e.status).toBe(400)
    expect(e.message).toMatch(/compaction/i)
    expect(e.message).toMatch(/50,?000/)
    expect(matrix.replay.requests.length).toBe(before)
  })

  it("answers the same refusal as an error event over the WebSocket", async () => {
    const { WebSocket } = await import("ws")
    const socket = new WebSocket(matrix.gateway.urls.responsesWebSocket, { headers: { authorization: "Bearer c" } })
    await new Promise((done, fail) => {
      socket.once("open", done)
      socket.once("error", fail)
    })
    const answer = new Promise<Record<string, unknown>>((done) =>
      socket.once("message", (data) => done(JSON.parse(String(data)) as Record<string, unknown>)),
    )
    socket.send(JSON.stringify({ type: "response.create", ...body }))
    const event = await answer
    socket.close()
    expect(event.type).toBe("error")
    expect(event.status).toBe(400)
    expect(JSON.stringify(event.error)).toMatch(/compaction/i)
  })
})
