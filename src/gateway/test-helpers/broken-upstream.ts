/**
 * An upstream that breaks its answers on purpose, for the broken-answer matrix: a real local HTTP server that
 * answers each request with a recorded stream of the format asked (test/fixtures/streams/), whole or broken in one
 * of the matrix's ways. The case is read from the model the request names, `b-<format>-<case>` (Gemini: in the
 * path), so one server and one gateway serve every cell.
 */
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { BuiltInWireFormat } from "../../models/types.js"
import { accumulate } from "../../providers/accumulate.js"
import { createPayloadDecoder, decodePayloadLines } from "../../providers/decode.js"
import type { StreamEvent } from "../../providers/stream.js"

/** How an upstream answer is broken. */
export const CASES = [
  "whole",
  "cut-before-content",
  "cut-mid-event",
  "cut-mid-answer",
  "spliced",
  "spliced-before-content",
  "error-event",
] as const
/** One way of breaking an answer. */
export type BreakCase = (typeof CASES)[number]
/** Freeform tool calls of a Responses upstream, whole: a custom tool's call and an apply_patch call. */
export const FREEFORM = {
  custom: "openai-responses/openai-custom-tool.1.chunks.txt",
  patch: "openai-responses/openai-apply-patch-tool.1.chunks.txt",
}
/** Recordings served as they are, by case name: the freeform calls, and Anthropic's recorded spliced stream. */
const AS_RECORDED: Record<string, string> = {
  ...FREEFORM,
  "recorded-splice": "anthropic/spliced-message-start.chunks.txt",
}

const STREAMS = new URL("../../../test/fixtures/streams/", import.meta.url)

/** Per upstream format: its recording, how a payload is framed, its in-stream error, a second generation's ids. */
interface Recording {
  file: string
  frame(line: string): string
  /** What a whole stream ends with after its payloads (Chat: `[DONE]`). */
  done: string
  /** The payloads of the format's own in-stream error. */
  error: unknown[]
  /** The line as a retried generation would send it: a new response id. */
  retried(line: string): string
}

const named = (line: string) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`
const chatError = { error: { message: "The server had an error processing your request.", type: "server_error" } }

const RECORDINGS: Record<BuiltInWireFormat, Recording> = {
  anthropic: {
    file: "anthropic/anthropic-text.chunks.txt",
    frame: named,
    done: "",
    error: [{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }],
    retried: (line) => line.replace('"id":"msg_', '"id":"msg_retry_'),
  },
  "openai-chat": {
    file: "openai-chat/openai-text.chunks.txt",
    frame: (line) => `data: ${line}\n\n`,
    done: "data: [DONE]\n\n",
    error: [chatError],
    retried: (line) => line.replace('{"id":"', '{"id":"retry-'),
  },
  deepseek: {
    file: "deepseek/deepseek-text.chunks.txt",
    frame: (line) => `data: ${line}\n\n`,
    done: "data: [DONE]\n\n",
    error: [chatError],
    retried: (line) => line.replace('{"id":"', '{"id":"retry-'),
  },
  "openai-responses": {
    file: "openai-responses/openai-phase.1.chunks.txt",
    frame: named,
    done: "",
    error: [
      { type: "error", error: { type: "server_error", code: "server_error", message: "The server had an error." } },
      { type: "response.failed", response: { id: "resp_x", status: "failed", error: { code: "server_error" } } },
    ],
    retried: (line) => line.replaceAll('"id":"resp_', '"id":"resp_retry_'),
  },
  gemini: {
    file: "gemini/google-text.chunks.txt",
    frame: (line) => `data: ${line}\r\n\r\n`,
    done: "",
    error: [
      { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } },
    ],
    retried: (line) => line.replace('"responseId":"', '"responseId":"retry-'),
  },
}

/** The payload lines of a recording. */
function linesOf(file: string): string[] {
  return readFileSync(new URL(file, STREAMS), "utf8").split("\n").filter(Boolean)
}

/** The index of the first payload whose events put content in front of a client. */
function firstContent(format: BuiltInWireFormat, lines: string[]): number {
  const decoder = createPayloadDecoder(format)
  return lines.findIndex((line) => {
    const out: StreamEvent[] = []
    decoder.push(JSON.parse(line), out)
    return out.some((e) => (e.type === "text" && e.delta !== "") || e.type === "tool_call_start")
  })
}

/** The answer bytes for a case, and whether the connection is then cut (else it ends normally). */
export function brokenAnswer(format: BuiltInWireFormat, kase: BreakCase): { bytes: Buffer; cut: boolean } {
  const rec = RECORDINGS[format]
  const lines = linesOf(rec.file)
  const frames = lines.map(rec.frame)
  const whole = frames.join("") + rec.done
  const retried = lines.map((l) => rec.frame(rec.retried(l))).join("") + rec.done
  const first = firstContent(format, lines)
  // A point inside the answer: its first content was sent, the answer is not over.
  const middle = first
  const upTo = (n: number) => frames.slice(0, n).join("")
  switch (kase) {
    case "whole":
      return { bytes: Buffer.from(whole), cut: false }
    case "cut-before-content":
      return { bytes: Buffer.from(upTo(first) || "\n"), cut: true }
    case "cut-mid-answer":
      return { bytes: Buffer.from(upTo(middle + 1)), cut: true }
    case "cut-mid-event": {
      const next = Buffer.from(frames[middle + 1]!)
      return { bytes: Buffer.concat([Buffer.from(upTo(middle + 1)), next.subarray(0, next.length >> 1)]), cut: true }
    }
    case "spliced":
      return { bytes: Buffer.from(upTo(middle + 1) + retried), cut: false }
    case "spliced-before-content":
      return { bytes: Buffer.from(upTo(first) + retried), cut: false }
    case "error-event": {
      const error = rec.error.map((p) => rec.frame(JSON.stringify(p))).join("")
      return { bytes: Buffer.from(upTo(middle + 1) + error), cut: false }
    }
  }
}

/** The bytes of a recording as it was sent, framed as `format` frames its payloads. */
function recordingBytes(format: BuiltInWireFormat, file: string): Buffer {
  const rec = RECORDINGS[format]
  return Buffer.from(linesOf(file).map(rec.frame).join("") + rec.done)
}

/** The text the whole recording of `format` answers, as promptline assembles it. */
export async function wholeText(format: BuiltInWireFormat): Promise<string> {
  const { events } = decodePayloadLines(format, linesOf(RECORDINGS[format].file).join("\n"))
  const { message } = await accumulate(events, { ts: 0 })
  return message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
}

/** A running broken upstream. */
export interface BrokenUpstream {
  url: string
  close(): Promise<void>
}

const MODEL = /b-(anthropic|openai-chat|openai-responses|gemini|deepseek)-([a-z-]+)/

/** Starts the broken upstream on 127.0.0.1. */
export async function startBrokenUpstream(): Promise<BrokenUpstream> {
  const server: Server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8")
    })
    req.on("end", () => {
      const named = MODEL.exec(`${req.url ?? ""} ${body}`)
      if (!named) {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: "no case named in the model" } }))
        return
      }
      const [, format, kase] = named as unknown as [string, BuiltInWireFormat, string]
      const recording = AS_RECORDED[kase]
      const { bytes, cut } = recording
        ? { bytes: recordingBytes(format, recording), cut: false }
        : brokenAnswer(format, kase as BreakCase)
      res.writeHead(200, { "content-type": "text/event-stream" })
      // A cut: the bytes reach the socket, then the connection closes without the body's end.
      if (cut) res.write(bytes, () => res.destroy())
      else res.end(bytes)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
