// bench/decode: a 5 MB Anthropic SSE stream, served from a local HTTP server, decoded into the assembled
// message by us (fetch → decodeResponse) and by the official SDK (client.messages.stream → finalMessage),
// in the same run. Reports MB/s for both and the ratio (target: at least 2x the SDK).
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import Anthropic from "@anthropic-ai/sdk"
import { decodeResponse } from "../src/providers/decode.js"
import { type Benchmark, median } from "./harness.js"

const TARGET_BYTES = 5 * 1024 * 1024

/** A deterministic word stream (no Math.random: the same bytes every run). */
function words(seed: number): () => string {
  const vocabulary = (
    "the of decoder stream event message token cache ✓ café naïve function return const value " +
    "agent model tool call result file path line error usage thinking signature 🙂 delta block"
  ).split(" ")
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return vocabulary[state % vocabulary.length]!
  }
}

function sse(payload: Record<string, unknown>): string {
  return `event: ${payload.type as string}\ndata: ${JSON.stringify(payload)}\n\n`
}

/**
 * A realistic long answer: thinking (with a signature), text, and tool calls whose arguments stream in
 * small pieces, repeated until the body reaches 5 MB. Byte shares: about 15% thinking, 65% text, 20% tool calls.
 */
export function buildStream(): { body: Buffer; textChars: number; toolCalls: number } {
  const next = words(42)
  const phrase = (n: number) => Array.from({ length: n }, next).join(" ")
  const parts: string[] = [
    sse({
      type: "message_start",
      message: {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 12_000,
          output_tokens: 1,
          cache_read_input_tokens: 40_000,
          cache_creation_input_tokens: 0,
        },
      },
    }),
  ]
  let size = parts[0]!.length
  let index = 0
  let textChars = 0
  let toolCalls = 0
  const push = (s: string) => {
    parts.push(s)
    size += Buffer.byteLength(s)
  }
  while (size < TARGET_BYTES) {
    // Thinking block.
    push(sse({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }))
    for (let i = 0; i < 40; i++)
      push(sse({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: ` ${phrase(4)}` } }))
    push(
      sse({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: "Eq".padEnd(300, "x") } }),
    )
    push(sse({ type: "content_block_stop", index }))
    index++
    // Text block.
    push(sse({ type: "content_block_start", index, content_block: { type: "text", text: "" } }))
    for (let i = 0; i < 180; i++) {
      const text = ` ${phrase(4)}${i % 25 === 0 ? "\n\n" : ""}`
      textChars += text.length
      push(sse({ type: "content_block_delta", index, delta: { type: "text_delta", text } }))
      if (i % 60 === 0) push(sse({ type: "ping" }))
    }
    push(sse({ type: "content_block_stop", index }))
    index++
    // A tool call writing a file of about 2 KB, streamed in 40-character pieces.
    const json = JSON.stringify({ path: `src/file-${toolCalls}.ts`, content: phrase(300) })
    push(
      sse({
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: `toolu_${toolCalls}`, name: "write_to_file", input: {} },
      }),
    )
    for (let at = 0; at < json.length; at += 40)
      push(
        sse({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: json.slice(at, at + 40) },
        }),
      )
    push(sse({ type: "content_block_stop", index }))
    index++
    toolCalls++
  }
  push(
    sse({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 900_000 },
    }),
  )
  push(sse({ type: "message_stop" }))
  return { body: Buffer.from(parts.join("")), textChars, toolCalls }
}

const bench: Benchmark = {
  name: "decode",
  async run() {
    const { body, textChars, toolCalls } = buildStream()
    const server = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_bench" })
        // Served in 16 KB writes, as a socket would deliver it.
        let at = 0
        const write = () => {
          while (at < body.length) {
            const chunk = body.subarray(at, at + 16_384)
            at += chunk.length
            if (!res.write(chunk)) return void res.once("drain", write)
          }
          res.end()
        }
        write()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const request = {
      model: "claude-sonnet-5-5",
      max_tokens: 64_000,
      messages: [{ role: "user" as const, content: "go" }],
    }
    const client = new Anthropic({ apiKey: "bench", baseURL: base, maxRetries: 0 })

    const ours = async () => {
      const res = await fetch(`${base}/v1/messages`, {
        method: "POST",
        body: JSON.stringify({ ...request, stream: true }),
      })
      const response = await decodeResponse("anthropic", res.body!, { ts: 0, model: "claude-sonnet-5-5" })
      if (response.message.content.length !== toolCalls * 3 || !response.complete) throw new Error("ours: wrong result")
      return response
    }
    const sdk = async () => {
      const message = await client.messages.stream(request).finalMessage()
      if (message.content.length !== toolCalls * 3) throw new Error("sdk: wrong result")
      return message
    }

    // Same content from both, checked once.
    const [a, b] = [await ours(), await sdk()]
    const ourText = a.message.content.flatMap((x) => (x.type === "text" ? [x.text] : [])).join("")
    const sdkText = b.content.flatMap((x) => (x.type === "text" ? [x.text] : [])).join("")
    if (ourText !== sdkText || ourText.length !== textChars) throw new Error("the two decoders disagree on the text")

    // Interleave the two so machine noise hits both alike; record wall time and this process's CPU time.
    const wall = { ours: [] as number[], sdk: [] as number[] }
    const cpu = { ours: [] as number[], sdk: [] as number[] }
    const measure = async (which: "ours" | "sdk") => {
      const c0 = process.cpuUsage()
      const t0 = process.hrtime.bigint()
      await (which === "ours" ? ours() : sdk())
      wall[which].push(Number(process.hrtime.bigint() - t0) / 1e6)
      const c = process.cpuUsage(c0)
      cpu[which].push((c.user + c.system) / 1000)
    }
    for (let warm = 0; warm < 2; warm++) await Promise.all([ours(), sdk()].map((p) => p.then(() => undefined)))
    for (let round = 0; round < 12; round++) {
      await measure("ours")
      await measure("sdk")
    }
    server.close()
    const mb = body.length / (1024 * 1024)
    const rate = (ms: number[]) => mb / (median(ms) / 1000)
    const label = `${mb.toFixed(1)} MB Anthropic SSE → assembled message, over local HTTP`
    const peer = "@anthropic-ai/sdk messages.stream().finalMessage()"
    return [
      {
        name: `${label} (wall clock)`,
        unit: "MB/s",
        ours: rate(wall.ours),
        peer: { name: peer, value: rate(wall.sdk) },
        better: "higher",
        target: "≥ 2x the SDK",
        met: rate(wall.ours) >= 2 * rate(wall.sdk),
      },
      {
        // CPU time of this process (server side included for both): steadier than wall time on a busy machine.
        name: `${label} (per CPU second)`,
        unit: "MB/s",
        ours: rate(cpu.ours),
        peer: { name: peer, value: rate(cpu.sdk) },
        better: "higher",
        target: "≥ 2x the SDK",
        met: rate(cpu.ours) >= 2 * rate(cpu.sdk),
      },
    ]
  },
}

export default bench
