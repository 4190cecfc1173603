/**
 * What a forwarded answer's path holds, and what waits until after it: a same-format request's bytes go upstream
 * unread, and its conversation key is worked out from its body only once the answer ended, also when a tracing
 * hook asks for extra headers before the answer (the early record it gets carries no derived key). The upstream
 * holds its answer half-way, so the test sees the gateway mid-answer; nothing here is timed.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { formatModule } from "../providers/formats.js"
import { CONVERSATION_HEADER, conversationKey } from "./conversation-key.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"

const sse = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

/** An Anthropic stream in two halves: the upstream sends the second when the test says so. */
const FIRST_HALF =
  sse("message_start", {
    message: { id: "msg_1", type: "message", role: "assistant", model: "claude-x", content: [], stop_reason: null },
  }) + sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } })
const SECOND_HALF =
  sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "done" } }) +
  sse("content_block_stop", { index: 0 }) +
  sse("message_delta", {
    delta: { stop_reason: "end_turn" },
    usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  }) +
  sse("message_stop", {})

let upstream: Server | undefined
let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close(0)
  upstream?.closeAllConnections()
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()))
  upstream = gateway = undefined
})

/** An upstream that sends the first half of its answer, then the rest once `release` is called. */
async function heldUpstream() {
  const releases: (() => void)[] = []
  upstream = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(FIRST_HALF)
      releases.push(() => res.end(SECOND_HALF))
    })
  })
  await new Promise<void>((resolve) => upstream!.listen(0, "127.0.0.1", () => resolve()))
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  return { url, release: () => releases.shift()?.() }
}

/** Waits (by turns of the event loop, not by a clock) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(done()).toBe(true)
}

describe("the answer's path", () => {
  it("works a same-format request's conversation key out after its answer ended, tracing or not", async () => {
    const held = await heldUpstream()
    const early: GatewayRecord[] = []
    const records: GatewayRecord[] = []
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { claude: { provider: "anthropic", baseUrl: held.url, keyEnv: "K" } },
        routes: [{ match: "claude-*", upstream: "claude" }],
      },
      env: { K: "sk-fake-held-upstream-key" },
      answerHeaders: (record) => {
        early.push(record)
        return { "x-promptline-test": "1" }
      },
      onRequest: (record) => records.push(record),
    })
    const body = {
      model: "claude-x",
      max_tokens: 16,
      stream: true,
      system: "You are a careful coding agent.",
      messages: [{ role: "user", content: "fix the build" }],
    }
    const ask = async (headers: Record<string, string>) => {
      const answer = await fetch(`${gateway!.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
        body: JSON.stringify(body),
      })
      const reader = answer.body!.getReader()
      let text = new TextDecoder().decode((await reader.read()).value)
      // Mid-answer: the client has the headers and the first half; no record exists yet.
      expect(answer.headers.get("x-promptline-test")).toBe("1")
      expect(records).toHaveLength(early.length - 1)
      held.release()
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        text += new TextDecoder().decode(chunk.value)
      return text
    }
    expect(await ask({})).toBe(FIRST_HALF + SECOND_HALF)
    await until(() => records.length === 1)
    const derived = conversationKey({}, formatModule("anthropic").decodeRequest(body, {}))
    // Before the answer: no key worked out (that would decode the body on the answer's path); after it: the key.
    expect(early[0]!.conversationKey).toBe("")
    expect(early[0]!.sent?.body).toEqual(body)
    expect(records[0]).toMatchObject({ conversationKey: derived, stop: "end", usage: { input: 12, output: 1 } })
    expect(records[0]!.bytes).toBe(Buffer.byteLength(FIRST_HALF + SECOND_HALF))
    // A key the client names is known up front, early record included.
    await ask({ [CONVERSATION_HEADER]: "chat-7" })
    await until(() => records.length === 2)
    expect([early[1]!.conversationKey, records[1]!.conversationKey]).toEqual(["chat-7", "chat-7"])
  })
})
