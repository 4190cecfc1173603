/** Reading a client's request body within the gateway's size and time limits. */
import type { IncomingMessage } from "node:http"
import { ProviderError } from "../providers/errors.js"
import { GatewayError } from "./errors.js"

/**
 * Reads the body, refusing more than `limit` bytes (413) or a body still incomplete `timeoutMs` after the headers
 * (408), each thrown as a GatewayError the client gets in its shape. A refused body is still read to its end and
 * dropped, so a client that sends all of it before reading sees the answer instead of a reset connection
 * (Node's request timeout bounds how long that may take).
 */
export function readBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"])
  const tooLarge = () =>
    new GatewayError(
      { kind: "invalid-request", message: `the request body is larger than the gateway's limit of ${limit} bytes` },
      413,
    )
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge())
  // Events rather than an async iterator: this is on every request's path, and a small body is one chunk.
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const refuse = (error: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.off("data", onData)
      req.resume()
      reject(error)
    }
    // Made only when it is thrown: an error's stack trace costs more than the rest of reading a small body.
    const late = () =>
      new GatewayError(
        {
          kind: "invalid-request",
          message: `the request body did not arrive within ${timeoutMs} ms of its headers (the gateway's bodyTimeoutMs)`,
        },
        408,
      )
    // Bytes that arrived while the process was busy are read first (the check phase follows the poll phase), so
    // only a body that truly is late is refused.
    const timer = setTimeout(() => setImmediate(() => refuse(late())), timeoutMs)
    const done = () => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) return refuse(tooLarge())
      chunks.push(chunk)
      // All the bytes it declared are here: the body is whole without waiting for the stream's end to be emitted.
      if (size === declared) done()
    }
    req.on("data", onData)
    req.once("end", done)
    req.once("error", (error) => refuse(error))
    req.once("close", () => {
      if (!req.complete) refuse(new ProviderError("network", "the client went away while sending its request"))
    })
  })
}
