/**
 * `GET /promptline/status` (HTML) and `/promptline/status.json`: the gateway's live status, under a prefix no
 * provider API uses. Never more open than the API routes: with a token, the token is required (as for every
 * request); without one, the gateway listens on loopback only, and the page answers only a request that names a
 * loopback host, so a web page whose name was pointed at 127.0.0.1 (DNS rebinding) cannot read it.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { isLoopbackHost } from "../http-url.js"
import { contentSecurityPolicy } from "../inspect/html-assets.js"
import { hasToken } from "./secrets.js"
import type { GatewayStatusSnapshot } from "./status.js"
import { renderRefusalHtml, renderStatusHtml } from "./status-page.js"

/** The status page's path. */
export const STATUS_PATH = "/promptline/status"
/** Its JSON twin. */
export const STATUS_JSON_PATH = "/promptline/status.json"

/** Whether a request path is the status page or its JSON twin. */
export function isStatusPath(path: string): boolean {
  return path === STATUS_PATH || path === STATUS_JSON_PATH
}

/** The host a Host header names, without its port. */
function hostName(header: string | undefined): string {
  const host = (header ?? "").trim()
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1)
  return host.split(":")[0]!
}

/** Whether a socket's peer address is this machine. */
function isLoopbackPeer(address: string | undefined): boolean {
  return address !== undefined && isLoopbackHost(address.replace(/^::ffff:/, ""))
}

/** Why a status request is refused (status and message), or undefined when it may be answered. */
function refusal(req: IncomingMessage, url: URL, token: string | undefined): [number, string] | undefined {
  if (req.method !== "GET" && req.method !== "HEAD") return [405, `${req.method} is not allowed here; use GET`]
  if (token !== undefined)
    return hasToken(req.headers, url.searchParams, token)
      ? undefined
      : [401, "this gateway needs its token (in Authorization, x-api-key, or ?key= for a browser)"]
  if (!isLoopbackPeer(req.socket.remoteAddress) || !isLoopbackHost(hostName(req.headers.host)))
    return [
      403,
      "without a token, the status is served to this machine only, at a loopback address (127.0.0.1, localhost, [::1])",
    ]
  return undefined
}

/** Headers every status answer carries: never cached, never framed, no referrer (a `?key=` stays in the page). */
const COMMON_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
}

/** The policy of every status answer: inline style only, no script, nothing loaded, never framed. */
const PAGE_POLICY = `${contentSecurityPolicy(false)}; frame-ancestors 'none'`

/** Answers a status request with `snapshot()` as HTML or JSON, or refuses it. */
export function serveStatus(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  options: { token: string | undefined; snapshot: () => GatewayStatusSnapshot },
): void {
  const json = url.pathname === STATUS_JSON_PATH
  const refused = refusal(req, url, options.token)
  if (refused) {
    const [status, message] = refused
    const headers: Record<string, string> = { ...COMMON_HEADERS }
    if (status === 405) headers.allow = "GET, HEAD"
    if (json) {
      res.writeHead(status, { ...headers, "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message } }))
    } else {
      res.writeHead(status, {
        ...headers,
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": PAGE_POLICY,
      })
      res.end(renderRefusalHtml(status, message))
    }
    return
  }
  const snapshot = options.snapshot()
  const body = json ? `${JSON.stringify(snapshot)}\n` : renderStatusHtml(snapshot)
  res.writeHead(200, {
    ...COMMON_HEADERS,
    "content-type": json ? "application/json" : "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "content-security-policy": PAGE_POLICY,
  })
  res.end(req.method === "HEAD" ? undefined : body)
}
