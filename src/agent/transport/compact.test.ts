import { afterEach, describe, expect, it } from "vitest"
import { fixtureModel } from "../../../test/fixtures/providers/requests/load.js"
import { encodeRequest } from "../../providers/encode.js"
import { endpointFor } from "../../providers/endpoints.js"
import { parseReplayScript } from "../../replay/script.js"
import { type ReplayServer, startReplayServer } from "../../replay/server.js"
import { compactResponses } from "./compact.js"

const servers: ReplayServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

describe("compactResponses: POST /v1/responses/compact", () => {
  it("sends the model, input and instructions of a Responses body and reads the compaction item back", async () => {
    const server = await startReplayServer({
      script: parseReplayScript({ version: 1, turns: [{ text: "unused" }], compact: { payload: "enc-compact" } }),
    })
    servers.push(server)
    const endpoint = endpointFor({ provider: "openai", env: {}, baseUrl: server.urls.openai, apiKey: "k" })
    const { body } = encodeRequest("openai-responses", {
      prompt: { text: "sys", tools: [] },
      messages: [
        { id: "u", role: "user", ts: 0, content: [{ type: "text", text: "the task" }] },
        { id: "a", role: "assistant", ts: 0, content: [{ type: "text", text: "working" }] },
      ],
      model: fixtureModel("openai-responses"),
    })
    const result = await compactResponses(endpoint, { body: body as Record<string, unknown>, provider: "openai" })
    expect(result.compaction).toEqual({
      type: "compaction",
      format: "openai-responses",
      provider: "openai",
      payload: "enc-compact",
      id: "cmp_compact_replay_0",
    })
    const sent = server.requests[0]!
    expect(sent.path).toBe("/v1/responses/compact")
    expect(Object.keys(sent.body as object).sort()).toEqual(["input", "instructions", "model"])
    expect(result.output.at(0)).toMatchObject({ role: "user" })
    expect(result.usage.input).toBeGreaterThan(0)
  })

  it("an answer without a compaction item is a compact-invalid error", async () => {
    const endpoint = endpointFor({ provider: "openai", env: {}, baseUrl: "http://127.0.0.1:9", apiKey: "k" })
    const fetchStub: typeof fetch = async () =>
      new Response(JSON.stringify({ object: "response.compaction", output: [] }))
    await expect(compactResponses(endpoint, { body: { model: "gpt-5" }, fetch: fetchStub })).rejects.toMatchObject({
      code: "compact-invalid",
    })
  })
})
