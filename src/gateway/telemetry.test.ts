import { type TracerProvider, trace } from "@opentelemetry/api"
import { afterEach, describe, expect, it } from "vitest"
import { loadPeer } from "../../test/peers/load.js"
import { formatModule } from "../providers/formats.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { finalTurn, scriptOf } from "../replay/test-helpers/fixtures.js"
import { conversationKey } from "./conversation-key.js"
import { type Gateway, startGateway } from "./server.js"
import { TRACER_NAME } from "./telemetry.js"

/** What the test uses of the OpenTelemetry SDK (a test peer: test/peers/package.json). */
interface FinishedSpan {
  name: string
  instrumentationScope: { name: string }
  attributes: Record<string, unknown>
}
interface TraceSdk {
  BasicTracerProvider: new (options: { spanProcessors: unknown[] }) => TracerProvider
  InMemorySpanExporter: new () => { getFinishedSpans(): FinishedSpan[] }
  SimpleSpanProcessor: new (exporter: unknown) => unknown
}
const sdk = await loadPeer<TraceSdk>("@opentelemetry/sdk-trace-base")

let replay: ReplayServer | undefined
let gateway: Gateway | undefined
afterEach(async () => {
  trace.disable()
  await gateway?.close(0)
  await replay?.close()
})

describe.skipIf(!sdk)("OpenTelemetry spans", () => {
  it("writes one GenAI span per request when the host registered an SDK, with no key in it", async () => {
    const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = sdk!
    const exporter = new InMemorySpanExporter()
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
    replay = await startReplayServer({ script: scriptOf(finalTurn) })
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { up: { provider: "openai", format: "openai-chat", baseUrl: `${replay.url}/v1`, keyEnv: "K" } },
        routes: [{ match: "*", upstream: "up", model: "gpt-upstream" }],
      },
      env: { K: "sk-fake-key-for-spans-000" },
    })
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-client-fake-000000" },
      body: JSON.stringify({ model: "gpt-client", messages: [{ role: "user", content: "hi" }] }),
    })
    expect(res.status).toBe(200)
    await res.text()
    const spans = exporter.getFinishedSpans()
    expect(spans).toHaveLength(1)
    const span = spans[0]!
    expect(span.name).toBe("chat gpt-client")
    expect(span.instrumentationScope.name).toBe(TRACER_NAME)
    expect(span.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-client",
      "gen_ai.response.model": "gpt-upstream",
      "gen_ai.provider.name": "openai",
      "gen_ai.usage.input_tokens": 300,
      "gen_ai.usage.output_tokens": 8,
      "http.response.status_code": 200,
      "promptline.mode": "same-format",
    })
    expect(JSON.stringify(span.attributes)).not.toMatch(/sk-fake|sk-client/)
    expect(replay.requests[0]!.body).toMatchObject({ model: "gpt-upstream" })
  })

  it("names the conversation without an onRequest hook: a same-format request's key, worked out after its answer", async () => {
    const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = sdk!
    const exporter = new InMemorySpanExporter()
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
    replay = await startReplayServer({ script: scriptOf(finalTurn, finalTurn) })
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { up: { provider: "openai", format: "openai-chat", baseUrl: `${replay.url}/v1`, keyEnv: "K" } },
        routes: [{ match: "*", upstream: "up" }],
      },
      env: { K: "sk-fake-key-for-spans-000" },
    })
    const body = {
      model: "gpt-client",
      messages: [
        { role: "system", content: "You are a careful coding agent." },
        { role: "user", content: "fix the build" },
      ],
    }
    const ask = async (headers: Record<string, string>) => {
      const res = await fetch(`${gateway!.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk-client-fake-000000", ...headers },
        body: JSON.stringify(body),
      })
      await res.text()
    }
    await ask({})
    await ask({ "x-promptline-conversation": "chat-7" })
    const derived = conversationKey({}, formatModule("openai-chat").decodeRequest(body, {}))
    expect(derived).toMatch(/^[0-9a-f]{16}$/)
    expect(exporter.getFinishedSpans().map((s) => s.attributes["gen_ai.conversation.id"])).toEqual([derived, "chat-7"])
  })
})
