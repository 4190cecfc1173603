/**
 * An upstream that fails on request, for the fallback tests: a real local HTTP server speaking one wire format,
 * which answers each request with the next step of its script (then `ok` once the script is used up). `ok` answers
 * with the text `from <name>` in the format's own stream or whole body (written by the format's encoders); the
 * other steps fail in one way (an error status with the provider's JSON error, headers that never come, or an
 * answer cut after its first event) or answer `ok` late, once the test lets them. A counting request's `ok` is a
 * count of the upstream's own (countedBy). It keeps every request's body and model.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { BuiltInWireFormat } from "../../models/types.js"
import { formatModule } from "../../providers/formats.js"
import type { StreamEvent } from "../../providers/stream.js"

/** One scripted answer. */
export type FaultStep =
  | "ok"
  /** Never sends headers (until the server closes). */
  | "hang"
  /** Sends headers and the first event, then cuts the connection. */
  | "cut"
  /** A streamed answer (200) whose first events say the upstream is overloaded, before any content. */
  | "overloaded-stream"
  /** A streamed answer (200) that opens with a comment line, and shows its content once `contentAfter` resolves. */
  | { contentAfter: Promise<void> }
  /** An error status with a JSON error body (and headers, such as `retry-after`). */
  | { status: number; message?: string; headers?: Record<string, string> }
  /** Answers `ok` once `until` resolves (a request still running while the test does something else). */
  | { until: Promise<void> }

/** A running fault upstream. */
export interface FaultUpstream {
  /** The base URL to configure (Chat-shaped formats: with `/v1`). */
  url: string
  /** The bodies it was sent, in order. */
  bodies: Record<string, unknown>[]
  /** Replaces what is left of the script. */
  script(...steps: FaultStep[]): void
  close(): Promise<void>
}

/** The text an `ok` answer of upstream `name` carries. */
export const okText = (name: string) => `from ${name}`

/** The token count upstream `name` answers a counting request with (one of its own: the sum of its name's codes). */
export const countedBy = (name: string) => [...name].reduce((sum, c) => sum + c.charCodeAt(0), 0)

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk)
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>
}

/** The events of a whole, short answer. */
function answerEvents(name: string): StreamEvent[] {
  return [
    { type: "text", delta: okText(name) },
    { type: "usage", input: 10, output: 3, cacheRead: 0, cacheWrite: 0 },
    { type: "stop", reason: "end" },
  ]
}

/** Starts a fault upstream named `name`, speaking `format`. */
export async function startFaultUpstream(name: string, format: BuiltInWireFormat): Promise<FaultUpstream> {
  let steps: FaultStep[] = []
  const bodies: Record<string, unknown>[] = []
  const hanging = new Set<ServerResponse>()
  const module = formatModule(format)
  const server: Server = createServer(async (req, res) => {
    const body = await readJson(req)
    bodies.push(body)
    const step = steps.shift() ?? "ok"
    if (step === "hang") {
      hanging.add(res)
      return
    }
    if (typeof step === "object" && "until" in step) await step.until
    else if (typeof step === "object" && "contentAfter" in step) {
      // Headers and a first line now (an SSE comment, as a keep-alive), the answer later.
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(": waiting\n\n")
      await step.contentAfter
    } else if (typeof step === "object") {
      const type = format === "anthropic" ? "api_error" : "server_error"
      const error =
        format === "anthropic"
          ? {
              type: "error",
              error: {
                type: step.status === 529 ? "overloaded_error" : type,
                message: step.message ?? `failure ${step.status}`,
              },
            }
          : { error: { message: step.message ?? `failure ${step.status}`, type, code: null } }
      res.writeHead(step.status, { "content-type": "application/json", ...step.headers })
      res.end(JSON.stringify(error))
      return
    }
    const path = req.url ?? ""
    if (/count_tokens|input_tokens|:countTokens/.test(path)) {
      // A token count, in the counting answer of the path's API.
      const tokens = countedBy(name)
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(path.includes(":countTokens") ? { totalTokens: tokens } : { input_tokens: tokens }))
      return
    }
    const model = String(body.model ?? "m")
    const streamed = body.stream === true || path.includes("stream")
    const options = { model, created: 0, includeUsage: true, request: body }
    if (!streamed) {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(module.encodeResponse(answerEvents(name), options)))
      return
    }
    const encoder = module.createStreamEncoder(options)
    if (!res.headersSent) res.writeHead(200, { "content-type": "text/event-stream" })
    const events = answerEvents(name)
    if (step === "overloaded-stream") {
      // Anthropic opens the message first, as its API does when it fails inside a stream.
      const opened =
        format === "anthropic"
          ? `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "msg_fault", type: "message", role: "assistant", model, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } })}\n\n`
          : ""
      res.end(opened + encoder.push({ type: "error", kind: "server", message: "Overloaded" }))
      return
    }
    if (step === "cut") {
      res.write(encoder.push(events[0]!))
      setImmediate(() => res.destroy())
      return
    }
    let text = ""
    for (const event of events) text += encoder.push(event)
    res.end(text + encoder.end())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const path = format === "openai-chat" || format === "openai-responses" ? "/v1" : ""
  return {
    url: `http://127.0.0.1:${port}${path}`,
    bodies,
    script(...next) {
      steps = next
    },
    async close() {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A base URL where nothing listens (a port that was free a moment ago): connections are refused. */
export async function refusingUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}
