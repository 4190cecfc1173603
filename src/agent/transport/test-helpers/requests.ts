import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { Message } from "../../../history/message.js"
import { resolveModel } from "../../../models/resolve.js"
import type { BuiltInWireFormat, ModelInfo } from "../../../models/types.js"
import { encodeRequest } from "../../../providers/encode.js"
import type { EnabledTool } from "../../../tools/spec.js"

/** A model id per wire format that the catalog knows. */
export const MODELS: Record<BuiltInWireFormat, string> = {
  anthropic: "claude-sonnet-4-6",
  "openai-chat": "gpt-4.1",
  "openai-responses": "gpt-5",
  gemini: "gemini-2.5-pro",
  deepseek: "deepseek-v4-pro",
}

const tool = (name: string): EnabledTool => ({
  id: name,
  kind: name === "read_file" ? "read" : "execute",
  name,
  description: `The ${name} tool.`,
  snippet: name,
  guidelines: [],
  parameters: {
    type: "object",
    properties: {
      path: { type: "string" },
      command: { type: "string" },
      start_line: { type: "number" },
      end_line: { type: "number" },
      requires_approval: { type: "boolean" },
      timeout: { type: "number" },
    },
    required: [],
  },
  examples: {},
})

/** The conversation the test requests carry. */
export const HISTORY: Message[] = [{ id: "u1", role: "user", content: [{ type: "text", text: "Fix the bug." }], ts: 1 }]

/** An encoded request for `format`, as the agent would send it, with the model it targets. */
export function encodedRequest(
  format: BuiltInWireFormat,
  options: { stream?: boolean; messages?: readonly Message[] } = {},
): { body: unknown; model: ModelInfo } {
  const { model } = resolveModel(MODELS[format])
  const { body } = encodeRequest(format, {
    prompt: { text: "You are a coding agent.", tools: [tool("read_file"), tool("execute_command")] },
    messages: options.messages ?? HISTORY,
    model,
    options: { maxTokens: 1024, ...(options.stream === false ? { stream: false } : {}) },
  })
  return { body, model }
}

/** A local HTTP server that answers every request (and WebSocket upgrade) with one fixed status and body. */
export async function fixedServer(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0
  const answer = (res: ServerResponse) => {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }
  const server: Server = createServer((req: IncomingMessage, res) => {
    hits++
    req.resume()
    req.on("end", () => answer(res))
  })
  server.on("upgrade", (_req, socket) => {
    hits++
    const text = JSON.stringify(body)
    socket.end(
      `HTTP/1.1 ${status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    )
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
