/**
 * Same-format mode: the client's body goes upstream as it came (only the model name is rewritten when a route
 * names another model), and the upstream's answer comes back byte for byte, its status and end-to-end headers
 * kept; a copy is decoded on the side for the record. An answer that is not the API's (an HTML page from a
 * proxy) becomes an error in the client's shape.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import { formatModule } from "../providers/formats.js"
import type { Exchange } from "./exchange.js"
import { HOP_BY_HOP } from "./exchange.js"
import type { RoutePlan } from "./routing.js"
import { redactDeep, redactText, StreamRedactor } from "./secrets.js"
import { isApiContentType, notTheApi, sendUpstream } from "./send.js"
import type { GatewaySettings } from "./settings.js"
import { forwardHeaders, upstreamEndpoint } from "./target.js"
import { UsageTap } from "./usage-tap.js"

/** One same-format call. */
export interface PassThroughInput {
  plan: RoutePlan
  /** The client's body bytes. */
  raw: Buffer
  /** The parsed body. */
  body: Record<string, unknown>
  /** The upstream URL (built by the caller from the endpoint: generation or counting). */
  url: (endpoint: ReturnType<typeof upstreamEndpoint>) => string
  key: string
  settings: GatewaySettings
}

/** The end-to-end headers of an upstream answer, to send to the client. */
function answerHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name) && name !== "set-cookie") out[name] = value
  return out
}

/**
 * Copies an answer to the client chunk by chunk, the client's bytes first and `copy` (the side decoder) after,
 * pausing while the client's socket is full, the client's bytes through `redactor` (a key of the gateway's own
 * never reaches a client). Resolves when the answer ended, or with the error that cut it.
 * Events rather than an async iterator: this runs for every chunk of every forwarded answer.
 */
function relay(
  from: IncomingMessage,
  to: ServerResponse,
  copy: (chunk: Buffer) => void,
  redactor: StreamRedactor,
): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const resume = () => from.resume()
    from.on("data", (chunk: Buffer) => {
      const out = redactor.push(chunk)
      if (out.length > 0 && !to.write(out)) {
        from.pause()
        to.once("drain", resume)
      }
      copy(chunk)
    })
    from.once("end", () => resolve(undefined))
    from.once("error", (error) => resolve(error))
    from.once("close", () => {
      if (!from.complete) resolve(new Error("the connection closed before the answer ended"))
    })
  })
}

/** Forwards one request unchanged and the answer back unchanged; records usage from a copy. */
export async function passThrough(ex: Exchange, input: PassThroughInput): Promise<void> {
  const { plan, settings } = input
  const endpoint = upstreamEndpoint(plan.upstream, input.key)
  ex.secrets.push(input.key)
  let payload: Buffer = input.raw
  let sentBody: unknown = input.body
  if (typeof input.body.model === "string" && input.body.model !== plan.model) {
    sentBody = { ...input.body, model: plan.model }
    payload = Buffer.from(JSON.stringify(sentBody))
  }
  const url = input.url(endpoint)
  const headers = forwardHeaders(ex.req.headers, endpoint)
  const { answer, type, failure: refused } = await sendUpstream(ex, { url, headers, payload, body: sentBody }, settings)
  if (refused) {
    const { text, error: failure } = refused
    if (isApiContentType(type) && text.trim() !== "") {
      // The provider's own error, in the client's own format: forwarded as it is, less any key it quotes.
      ex.error = { kind: failure.kind, message: failure.message }
      ex.markFirstByte()
      ex.res.writeHead(answer.status, redactDeep(answerHeaders(answer.headers), ex.secrets))
      ex.res.end(redactText(text, ex.secrets))
      return
    }
    ex.failWith(notTheApi(plan.upstream.name, answer.status, type, failure, "JSON"))
    return
  }
  const tap = new UsageTap(plan.upstream.format, type, formatModule(plan.upstream.format).decodeOptions(sentBody))
  const extra = ex.answerHeaders ? await ex.extraHeaders() : undefined
  ex.markFirstByte()
  // No early flush: the headers leave with the first chunk, one write instead of two.
  ex.res.writeHead(
    answer.status,
    extra ? { ...answerHeaders(answer.headers), ...extra } : answerHeaders(answer.headers),
  )
  // The key from the gateway's environment is kept out of the answer too; the client's own key is the client's.
  const redactor = new StreamRedactor(plan.upstream.keyEnv !== undefined ? [input.key] : [])
  const failed = await relay(answer.body, ex.res, (chunk) => tap.feed(chunk), redactor)
  const cut =
    failed === undefined
      ? undefined
      : (answer.cutBy()?.message ?? `the upstream connection failed mid-answer: ${failed.message}`)
  const result = tap.end(cut)
  if (result.usage) ex.usage = result.usage
  if (result.stop) ex.stop = result.stop
  if (result.error) ex.error = result.error
  if (cut !== undefined) {
    // Bytes were sent: no status can change and nothing is retried; the client sees the stream cut, as the upstream cut it.
    ex.res.destroy()
    return
  }
  ex.res.end(redactor.end())
}
