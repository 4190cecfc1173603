/**
 * Hostile HTTP for the gateway's fuzz and slow-client tests: generators of raw requests (request lines, paths
 * with percent escapes, methods, headers, bodies and their framing, WebSocket upgrades and frames) and a client
 * that writes bytes on a plain TCP socket and reads until the gateway closes it.
 */
import { connect, type Socket } from "node:net"
import fc from "fast-check"

/** The token the fuzzed gateway requires. */
export const FUZZ_TOKEN = "fuzz-token-0123456789"

/** One generated request: its bytes, what follows an upgrade, and whether the client half-closes after writing. */
export interface RawRequest {
  bytes: Buffer
  /** Frames written once the gateway answered 101 (then the client ends its side). */
  frames: Buffer[]
  halfClose: boolean
}

/** A WebSocket frame as a client writes it (masked unless asked otherwise), header bytes per RFC 6455 §5.2. */
export function wsFrame(opcode: number, payload: Buffer, options: { mask?: boolean; fin?: boolean } = {}): Buffer {
  const { mask = true, fin = true } = options
  const head: number[] = [(fin ? 0x80 : 0) | (opcode & 0x0f)]
  const maskBit = mask ? 0x80 : 0
  if (payload.length < 126) head.push(maskBit | payload.length)
  else if (payload.length < 65536) head.push(maskBit | 126, payload.length >> 8, payload.length & 0xff)
  else {
    head.push(maskBit | 127, 0, 0, 0, 0)
    for (const shift of [24, 16, 8, 0]) head.push((payload.length >>> shift) & 0xff)
  }
  if (!mask) return Buffer.concat([Buffer.from(head), payload])
  const key = Buffer.from([0x37, 0xfa, 0x21, 0x3d])
  const masked = Buffer.from(payload.map((b, i) => b ^ key[i % 4]!))
  return Buffer.concat([Buffer.from(head), key, masked])
}

/** `[[[…]]]` nested `depth` deep around a string, as JSON text. */
export function nestedJson(depth: number): string {
  return `${"[".repeat(depth)}"x"${"]".repeat(depth)}`
}

const segment = fc.oneof(
  fc.constantFrom("gemini-2.5-pro", "claude-x", "%ZZ", "%", "%E0%A4", "%00", "%2F..%2F", "a%41b", "", "%C0%AF", "é"),
  fc.string({ unit: fc.constantFrom("a", "%", "Z", "2", "F", "0", "é", ":", "/", "?", "#", " ", "\t"), maxLength: 12 }),
)

const path = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("/v1/messages", "/v1/chat/completions", "/v1/responses", "/responses") },
  fc.constantFrom("/chat/completions", "/v1/messages/count_tokens", "/v1/responses/input_tokens", "/v1/models"),
  fc.constantFrom("/models", "/v1beta/models", "/", "*", "", "/v1/messages/../models", "/v1//messages"),
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom("v1", "v1beta", "v1alpha"),
        segment,
        fc.constantFrom("generateContent", "streamGenerateContent", "countTokens", "x"),
      )
      .map(([v, m, verb]) => `/${v}/models/${m}:${verb}`),
  },
  fc.constantFrom("http://[::1", "http://[::1]/v1/messages", "http://x/v1/chat/completions", "//v1/messages"),
  fc.constantFrom("http://", "https://a:b@c/v1/responses", "http://%zz/", "http:/\\/v1/messages", "h://"),
  fc.string({ maxLength: 24 }),
)

const query = fc.oneof(
  { weight: 4, arbitrary: fc.constant("") },
  fc.constantFrom("?alt=sse", `?key=${FUZZ_TOKEN}`, "?key=wrong", "?%ZZ=1", "?alt=%", "?a=1&a=2", "?key=%"),
  fc.string({ maxLength: 12 }).map((s) => `?${s}`),
)

const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("POST") },
  { weight: 2, arbitrary: fc.constantFrom("GET") },
  fc.constantFrom("PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "CONNECT", "TRACE", "post", "P OST", ""),
  fc.string({ maxLength: 8 }),
)

const version = fc.oneof(
  { weight: 8, arbitrary: fc.constant("HTTP/1.1") },
  fc.constantFrom("HTTP/1.0", "HTTP/2.0", "HTTP/1.1 x", "", "HTTP/9.9", "http/1.1"),
)

const auth = fc.oneof(
  { weight: 3, arbitrary: fc.constant(`authorization: Bearer ${FUZZ_TOKEN}`) },
  { weight: 2, arbitrary: fc.constantFrom(`x-api-key: ${FUZZ_TOKEN}`, `x-goog-api-key: ${FUZZ_TOKEN}`) },
  fc.constantFrom("", "authorization: Bearer wrong", "authorization: Basic %%%", "x-api-key: ", "authorization:"),
)

const header = fc.oneof(
  fc.constantFrom(
    "content-type: application/json",
    "content-type: text/plain",
    "content-type: application/json; charset=utf-8",
    "anthropic-version: 2023-06-01",
    "x-promptline-conversation: c1",
    "expect: 100-continue",
    "accept: text/event-stream",
    "connection: keep-alive",
    "upgrade: websocket",
    "content-encoding: gzip",
    "host: [::1",
    "x: y\r\n z",
  ),
  fc
    .tuple(
      fc.string({ unit: fc.constantFrom("a", "-", "x", ":", " ", "é", "\u0000", "\r"), minLength: 1, maxLength: 8 }),
      fc.string({ maxLength: 16 }),
    )
    .map(([n, v]) => `${n}: ${v}`),
)

const model = fc.oneof(
  fc.constantFrom("claude-sonnet", "gpt-4o", "o-mini", "gemini-pro", "fit-me", "other", "", "%ZZ", "*"),
  fc.string({ maxLength: 10 }),
  fc.jsonValue({ maxDepth: 1 }),
)

/** Bodies that look like each client API's, with fields that may be anything. */
const apiBody = fc.oneof(
  fc.record(
    {
      model,
      max_tokens: fc.oneof(fc.constant(16), fc.jsonValue({ maxDepth: 1 })),
      stream: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 0 })),
      messages: fc.oneof(
        fc.constant([{ role: "user", content: "hi" }]),
        fc.array(
          fc.record({
            role: fc.constantFrom("user", "assistant", "system", "tool", "x"),
            content: fc.jsonValue({ maxDepth: 3 }),
          }),
          { maxLength: 3 },
        ),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      tools: fc.jsonValue({ maxDepth: 4 }),
      system: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: ["model", "messages"] },
  ),
  fc.record(
    {
      model,
      input: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 3 })),
      stream: fc.boolean(),
      previous_response_id: fc.string(),
    },
    { requiredKeys: ["model", "input"] },
  ),
  fc.record(
    {
      contents: fc.oneof(fc.constant([{ role: "user", parts: [{ text: "hi" }] }]), fc.jsonValue({ maxDepth: 4 })),
      generationConfig: fc.jsonValue({ maxDepth: 2 }),
      systemInstruction: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: ["contents"] },
  ),
)

/** Body text: API-like JSON, any JSON, nesting past the gateway's limit, text that is not JSON, or nothing. */
const bodyText = fc.oneof(
  { weight: 6, arbitrary: apiBody.map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  fc.integer({ min: 100, max: 3000 }).map(nestedJson),
  fc.constantFrom("", "{", "null", "[]", '{"model":"claude-x","messages":[]}', `{"x":"${"y".repeat(70_000)}"}`),
  fc.string({ maxLength: 40 }),
)

/** How a body is framed: its true length, chunked, a length that lies, or none at all. */
const framing = fc.oneof(
  { weight: 6, arbitrary: fc.constant("length" as const) },
  { weight: 2, arbitrary: fc.constant("chunked" as const) },
  fc.constantFrom("bad-chunk" as const, "short-length" as const, "long-length" as const, "none" as const),
)

function framed(body: string, how: "length" | "chunked" | "bad-chunk" | "short-length" | "long-length" | "none") {
  const bytes = Buffer.from(body, "utf8")
  const half = Math.floor(bytes.length / 2)
  switch (how) {
    case "length":
      return { headers: [`content-length: ${bytes.length}`], body: bytes }
    case "chunked":
      return {
        headers: ["transfer-encoding: chunked"],
        body: Buffer.concat([
          Buffer.from(`${half.toString(16)}\r\n`),
          bytes.subarray(0, half),
          Buffer.from(`\r\n${(bytes.length - half).toString(16)}\r\n`),
          bytes.subarray(half),
          Buffer.from("\r\n0\r\n\r\n"),
        ]),
      }
    case "bad-chunk":
      return { headers: ["transfer-encoding: chunked"], body: Buffer.concat([Buffer.from("zz\r\n"), bytes]) }
    case "short-length":
      return { headers: [`content-length: ${half}`], body: bytes }
    case "long-length":
      return { headers: [`content-length: ${bytes.length + 100}`], body: bytes }
    case "none":
      return { headers: [], body: bytes }
  }
}

/** A plain HTTP request, mostly well-formed enough to reach the gateway's own code. */
const httpRequest = fc
  .record({
    method,
    path,
    query,
    version,
    auth,
    headers: fc.array(header, { maxLength: 4 }),
    body: bodyText,
    framing,
    truncate: fc.oneof({ weight: 19, arbitrary: fc.constant(false) }, fc.constant(true)),
    halfClose: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, fc.constant(true)),
  })
  .map((r): RawRequest => {
    const { headers, body } = framed(r.body, r.framing)
    const head = [`${r.method} ${r.path}${r.query} ${r.version}`, r.auth, ...r.headers, ...headers, "connection: close"]
      .filter((line) => line !== "")
      .join("\r\n")
    const bytes = Buffer.concat([Buffer.from(`${head}\r\n\r\n`, "utf8"), body])
    // A request cut short, or a length that promises more than is sent: the client then ends its side.
    const short = r.truncate || r.framing === "long-length"
    return {
      bytes: short ? bytes.subarray(0, Math.floor(bytes.length * 0.6)) : bytes,
      frames: [],
      halfClose: short || r.halfClose,
    }
  })

/** A frame's payload: a response.create (routed either way, or nowhere), nesting past the limit, or anything. */
const framePayload = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        model: fc.constantFrom("o-mini", "gpt-4o", "claude-x", "nowhere", ""),
        input: fc.jsonValue({ maxDepth: 2 }),
      })
      .map((e) => JSON.stringify({ type: "response.create", ...e })),
  },
  fc.integer({ min: 100, max: 2000 }).map((d) => `{"type":"response.create","input":${nestedJson(d)}}`),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 30 }),
)

const frame = fc.oneof(
  { weight: 5, arbitrary: framePayload.map((p) => wsFrame(0x1, Buffer.from(p))) },
  framePayload.map((p) => wsFrame(0x1, Buffer.from(p), { mask: false })),
  fc.constantFrom(
    wsFrame(0x1, Buffer.from([0xc3, 0x28])),
    wsFrame(0x2, Buffer.from([1, 2, 3])),
    wsFrame(0x9, Buffer.from("ping")),
    wsFrame(0x8, Buffer.from([0x03, 0xe8])),
    wsFrame(0x3, Buffer.from("reserved opcode")),
    wsFrame(0x1, Buffer.from('{"type":'), { fin: false }),
    wsFrame(0x0, Buffer.from('"response.create"}')),
    Buffer.from([0x81, 0xff, 0xff]),
  ),
  fc.uint8Array({ maxLength: 16 }).map((b) => Buffer.from(b)),
)

/** A WebSocket upgrade (on the Responses path or elsewhere, with or without the token) and the frames after it. */
const upgradeRequest = fc
  .record({
    path: fc.oneof({ weight: 5, arbitrary: fc.constant("/v1/responses") }, path),
    query,
    auth,
    key: fc.constantFrom("dGhlIHNhbXBsZSBub25jZQ==", "", "not base64", "AAAAAAAAAAAAAAAAAAAAAA=="),
    version: fc.constantFrom("13", "13", "8", ""),
    frames: fc.array(frame, { maxLength: 4 }),
  })
  .map((r): RawRequest => {
    const head = [
      `GET ${r.path}${r.query} HTTP/1.1`,
      "host: 127.0.0.1",
      "upgrade: websocket",
      "connection: Upgrade",
      r.auth,
      r.key === "" ? "" : `sec-websocket-key: ${r.key}`,
      r.version === "" ? "" : `sec-websocket-version: ${r.version}`,
    ]
      .filter((line) => line !== "")
      .join("\r\n")
    return { bytes: Buffer.from(`${head}\r\n\r\n`, "utf8"), frames: r.frames, halfClose: false }
  })

/** Any hostile request: plain HTTP mostly, WebSocket upgrades, and bytes that are not HTTP at all. */
export const rawRequest: fc.Arbitrary<RawRequest> = fc.oneof(
  { weight: 16, arbitrary: httpRequest },
  { weight: 3, arbitrary: upgradeRequest },
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => ({ bytes: Buffer.from(b), frames: [], halfClose: true })),
)

/**
 * Writes a request on a fresh connection and reads until the gateway closes it (or resets it); resolves with the
 * bytes received as latin1 text. After a 101 the frames are written and the client ends its side.
 */
export function sendRaw(port: number, request: RawRequest): Promise<string> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, "127.0.0.1")
    let received = ""
    let upgraded = false
    const done = () => resolve(received)
    socket.on("error", () => {})
    socket.on("close", done)
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1")
      if (!upgraded && /^HTTP\/1\.1 101 /.test(received) && received.includes("\r\n\r\n")) {
        upgraded = true
        for (const f of request.frames) socket.write(f)
        socket.end()
      }
    })
    socket.write(request.bytes)
    if (request.halfClose) socket.end()
  })
}
