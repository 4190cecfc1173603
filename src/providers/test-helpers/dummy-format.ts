/**
 * A sixth wire format that exists only in tests, "dummy": a request and answer shape of its own (small JSON, not
 * any provider's), its codecs, a stream of one JSON payload per server-sent event, its client API paths, auth,
 * counting endpoint, cache scheme and token overheads. `registerWireFormat(dummyFormat)` is the one place it is
 * added; sixth-format.test.ts then finds it served, counted, explained and accepted like a built-in format.
 */
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import { type Message, textOf } from "../../history/message.js"
import type { JsonSchema } from "../../tools/spec.js"
import { clientTool } from "../client-tool.js"
import type { WireFormatDescriptor } from "../descriptor.js"
import { ProviderError } from "../errors.js"
import { emptyStats, num, obj, type PayloadDecoder, type StreamEvent, str } from "../stream.js"
import type { DecodedRequest, EncodeInput, EncodeResult, ErrorInput, WireFormatModule } from "../types.js"
import type { WireParts } from "../wire-parts.js"

/** A tool as the dummy API declares it. */
export interface DummyTool {
  tool: string
  about: string
  input: Record<string, unknown>
}

/** One turn: something said, a call the model made, or the result the user sends back. */
export type DummyTurn =
  | { who: "user" | "model"; say: string }
  | { who: "model"; call: { id: string; tool: string; args: unknown } }
  | { who: "user"; result: { id: string; text: string; error?: true } }

/** The request body. */
export interface DummyBody {
  model: string
  system?: string
  tools?: DummyTool[]
  turns: DummyTurn[]
  stream?: boolean
  max?: number
}

/** The fields of a request body the format defines; any other is passed through unmodeled. */
const FIELDS = new Set(["model", "system", "tools", "turns", "stream", "max"])

const STOPS = { done: "end", tool: "tool_use", max: "length" } as const
type DummyStop = keyof typeof STOPS
const STOP_OF: Readonly<Record<string, DummyStop>> = { end: "done", tool_use: "tool", length: "max" }

function encodeDummy(input: EncodeInput): EncodeResult<DummyBody> {
  const diagnostics: Diagnostic[] = []
  const turns: DummyTurn[] = []
  if (input.prompt.contextMessage) turns.push({ who: "user", say: input.prompt.contextMessage })
  for (const m of input.messages)
    for (const b of m.content) {
      const who = m.role === "assistant" ? "model" : "user"
      if (b.type === "text") turns.push({ who, say: b.text })
      else if (b.type === "tool_use") turns.push({ who: "model", call: { id: b.id, tool: b.name, args: b.input } })
      else if (b.type === "tool_result")
        turns.push({ who: "user", result: { id: b.toolUseId, text: textOf(b), ...(b.isError ? { error: true } : {}) } })
      else
        diagnostics.push(diagnostic("warning", "dummy-block-dropped", `a ${b.type} block has no place in a dummy body`))
    }
  const tools =
    input.prompt.toolCalling === "xml"
      ? []
      : input.prompt.tools.map((t) => ({ tool: t.name, about: t.description, input: t.parameters }))
  const body: DummyBody = {
    model: input.model.id,
    ...(input.prompt.text ? { system: input.prompt.text } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    turns,
    stream: input.options?.stream ?? true,
    max: input.options?.maxTokens ?? input.model.maxOutput,
  }
  return { body, diagnostics, breakpoints: [] }
}

const refused = (message: string, param?: string) =>
  new ProviderError("invalid-request", param ? `${param}: ${message}` : message, { status: 400 })

function decodeDummyRequest(raw: unknown, route?: { model?: string; stream?: boolean }): DecodedRequest {
  const body = obj(raw)
  if (!body) throw refused("the body is not a JSON object")
  const model = route?.model ?? str(body.model)
  if (model === undefined) throw refused("a model is required", "model")
  if (!Array.isArray(body.turns)) throw refused("turns must be a list", "turns")
  const messages: Message[] = []
  body.turns.forEach((item, i) => {
    const turn = obj(item)
    const role = turn?.who === "model" ? "assistant" : turn?.who === "user" ? "user" : undefined
    if (!turn || !role) throw refused('who must be "user" or "model"', `turns[${i}].who`)
    const call = obj(turn.call)
    const result = obj(turn.result)
    const block =
      typeof turn.say === "string"
        ? { type: "text" as const, text: turn.say }
        : call
          ? { type: "tool_use" as const, id: String(call.id), name: String(call.tool), input: call.args ?? {} }
          : result
            ? {
                type: "tool_result" as const,
                toolUseId: String(result.id),
                content: String(result.text ?? ""),
                ...(result.error === true ? { isError: true } : {}),
              }
            : undefined
    if (!block) throw refused("a turn says, calls or answers a call", `turns[${i}]`)
    const last = messages.at(-1)
    if (last?.role === role) last.content.push(block)
    else messages.push({ id: `m${messages.length + 1}`, role, content: [block], ts: 0 })
  })
  const tools = (Array.isArray(body.tools) ? body.tools : []).map((t, i) => {
    const tool = obj(t)
    if (!tool || typeof tool.tool !== "string") throw refused("a tool has a name", `tools[${i}].tool`)
    const schema = obj(tool.input) ?? {}
    return clientTool(tool.tool, str(tool.about) ?? "", {
      ...schema,
      type: "object",
      properties: (obj(schema.properties) ?? {}) as Record<string, JsonSchema>,
      required: Array.isArray(schema.required) ? schema.required.map(String) : [],
    })
  })
  const stream = route?.stream ?? body.stream === true
  return {
    model,
    prompt: { text: str(body.system) ?? "", tools },
    messages,
    options: { stream, ...(typeof body.max === "number" ? { maxTokens: body.max } : {}) },
    unmodeled: Object.keys(body).filter((k) => !FIELDS.has(k)),
    sources: {},
    diagnostics: [],
  }
}

/** Reads the stream: `{ say }` text, `{ call }` a whole tool call, `{ usage }`, then `{ end }`. */
class DummyDecoder implements PayloadDecoder {
  readonly stats = emptyStats()
  #usage: Extract<StreamEvent, { type: "usage" }> | undefined
  #ended = false

  push(payload: unknown, out: StreamEvent[]): void {
    this.stats.payloads++
    const p = obj(payload) ?? {}
    const call = obj(p.call)
    const usage = obj(p.usage)
    if (typeof p.say === "string") out.push({ type: "text", delta: p.say })
    else if (call) {
      const id = String(call.id)
      out.push({ type: "tool_call_start", id, name: String(call.tool) })
      out.push({ type: "tool_call_end", id, input: call.args ?? {} })
    } else if (usage)
      this.#usage = {
        type: "usage",
        input: num(usage.in),
        output: num(usage.out),
        cacheRead: num(usage.cached),
        cacheWrite: 0,
      }
    else if (typeof p.end === "string" && !this.#ended) {
      this.#ended = true
      if (this.#usage) out.push(this.#usage)
      out.push({ type: "stop", reason: STOPS[p.end as DummyStop] ?? "end" })
    } else this.stats.malformed++
  }

  pushRaw(): void {
    this.stats.malformed++
  }

  end(out: StreamEvent[]): void {
    if (this.#ended) return
    this.#ended = true
    out.push({ type: "error", kind: "truncated", message: "the dummy stream ended before its end payload" })
    out.push({ type: "stop", reason: "error" })
  }

  fail(error: Extract<StreamEvent, { type: "error" }>, out: StreamEvent[]): void {
    if (this.#ended) return
    this.#ended = true
    out.push(error, { type: "stop", reason: "error" })
  }
}

/** The payload one event becomes (none for events the format has no place for). */
function payloadOf(event: StreamEvent, names: Map<string, string>): unknown {
  switch (event.type) {
    case "text":
      return { say: event.delta }
    case "tool_call_start":
      names.set(event.id, event.name)
      return undefined
    case "tool_call_end":
      return { call: { id: event.id, tool: names.get(event.id) ?? "", args: event.input } }
    case "usage":
      return { usage: { in: event.input, out: event.output, cached: event.cacheRead } }
    case "stop":
      return { end: STOP_OF[event.reason] ?? "done" }
    default:
      return undefined
  }
}

/** A whole answer: `{ say, calls, usage, end }`. */
function encodeDummyResponse(events: readonly StreamEvent[]): unknown {
  const names = new Map<string, string>()
  const payloads = events.map((e) => obj(payloadOf(e, names)) ?? {})
  return {
    say: payloads.map((p) => str(p.say) ?? "").join(""),
    calls: payloads.flatMap((p) => (p.call ? [p.call] : [])),
    usage: payloads.find((p) => p.usage)?.usage ?? { in: 0, out: 0, cached: 0 },
    end: payloads.find((p) => p.end)?.end ?? "done",
  }
}

/** The events of a whole answer. */
function dummyResponseEvents(body: unknown): StreamEvent[] {
  const b = obj(body) ?? {}
  const decoder = new DummyDecoder()
  const out: StreamEvent[] = []
  if (typeof b.say === "string" && b.say !== "") decoder.push({ say: b.say }, out)
  for (const call of Array.isArray(b.calls) ? b.calls : []) decoder.push({ call }, out)
  decoder.push({ usage: b.usage ?? {} }, out)
  decoder.push({ end: b.end ?? "done" }, out)
  return out
}

const STATUS: Readonly<Record<ErrorInput["kind"], number>> = {
  "invalid-request": 400,
  "context-overflow": 400,
  auth: 401,
  quota: 402,
  "not-found": 404,
  "rate-limit": 429,
  server: 500,
  network: 502,
  overloaded: 503,
}

/** An error answer: `{ oops: { kind, message } }` with the kind's status. */
function encodeDummyError(error: ErrorInput) {
  return { status: STATUS[error.kind], headers: {}, body: { oops: { kind: error.kind, message: error.message } } }
}

/** The caching units: the system prompt, each tool, each turn. */
function dummyWireParts(body: Record<string, unknown>): WireParts {
  const system = typeof body.system === "string" ? [{ path: "system", value: body.system, text: body.system }] : []
  const tools = (Array.isArray(body.tools) ? body.tools : []).map((t, i) => ({
    path: `tools[${i}]`,
    name: String(obj(t)?.tool ?? `tool ${i}`),
    value: t,
  }))
  const messages = (Array.isArray(body.turns) ? body.turns : []).map((t, i) => {
    const { who, ...rest } = obj(t) ?? {}
    const kind = Object.keys(rest)[0] ?? "value"
    const path = `turns[${i}]`
    return { path, role: String(who), head: { who }, blocks: [{ path, value: rest, kind }] }
  })
  return { tools, system, messages }
}

const MINUTE = 60_000

/** The dummy format as data. */
export const dummyDescriptor = {
  format: "dummy",
  speaks: "dummy",
  defaultFor: { providers: ["dummy"] },
  nativeTools: "openai-chat",
  overhead: { message: 3, request: 2, tool: 5, toolsPreamble: 0, toolBlock: 4, image: 100 },
  cache: {
    // Unlike every built-in scheme: the system prompt comes before the tools.
    order: ["system", "tools", "messages"],
    mode: "automatic",
    unit: 16,
    lookback: 0,
    defaultLifetimeMs: 10 * MINUTE,
    defaultMinimum: 32,
    describe: "system → tools → turns, any prefix, in steps of 16 tokens",
  },
  endpoint: { path: "/v1/dummy/generate", auth: "x-api-key" },
  counting: {
    request: (url, body) => ({ url: `${url}/count`, body }),
    tokens: (answer) => answer?.tokens,
    answer: (tokens) => ({ tokens }),
  },
  api: {
    generation: ["/v1/dummy/generate"],
    counting: ["/v1/dummy/generate/count"],
    marks: { pathPrefix: /^\/v1\/dummy\// },
    modelList: { paths: (path) => path === "/v1/dummy/models", shape: (ids) => ({ models: ids }) },
  },
  detect: (v) => (typeof v.say === "string" ? 'a "say" payload' : undefined),
  history: "turns",
} as const satisfies WireFormatDescriptor<"dummy", "dummy">

/** The dummy format's module: what `registerWireFormat` takes. */
export const dummyFormat: WireFormatModule<DummyBody> = {
  format: "dummy",
  speaks: "dummy",
  encode: encodeDummy,
  createDecoder: () => new DummyDecoder(),
  responseEvents: dummyResponseEvents,
  decodeOptions: () => ({}),
  nativeTools: (tools) => tools.map((t) => ({ tool: t.name, about: t.description, input: t.parameters })),
  overhead: dummyDescriptor.overhead,
  descriptor: dummyDescriptor,
  decodeRequest: decodeDummyRequest,
  createStreamEncoder: () => {
    const names = new Map<string, string>()
    return {
      push: (event) => {
        const payload = payloadOf(event, names)
        return payload === undefined ? "" : `data: ${JSON.stringify(payload)}\n\n`
      },
      end: () => "",
    }
  },
  encodeResponse: encodeDummyResponse,
  encodeError: encodeDummyError,
  wireParts: dummyWireParts,
}
