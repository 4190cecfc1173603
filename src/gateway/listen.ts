/**
 * Starting the gateway's HTTP server: Node's server options from the settings (how long a client may take to
 * send a request), and listening, with each way it can fail said in one line that names the fix.
 */
import type { Server, ServerOptions } from "node:http"
import { GatewayConfigError, type GatewaySettings } from "./settings.js"

/** How often, at most, Node looks for clients that took too long to send a request (its own default). */
const LONGEST_CHECK_INTERVAL_MS = 30_000

/**
 * Node's server options for the settings. Node measures a request from its first byte: the headers must be in
 * within `headersTimeoutMs`, the whole request within both timeouts together (a backstop: the exchange answers a
 * slow body itself, in the client's shape, when `bodyTimeoutMs` has passed since the headers). An answer being
 * written is never timed here: a long streamed answer runs as long as its upstream goes on.
 */
export function serverOptions(settings: GatewaySettings): ServerOptions {
  const { headersTimeoutMs, bodyTimeoutMs } = settings
  return {
    headersTimeout: headersTimeoutMs,
    requestTimeout: headersTimeoutMs + bodyTimeoutMs,
    // Node checks every interval, so a timeout is enforced up to one interval late: a quarter of the shorter one.
    connectionsCheckingInterval: Math.min(
      LONGEST_CHECK_INTERVAL_MS,
      Math.max(10, Math.floor(Math.min(headersTimeoutMs, bodyTimeoutMs) / 4)),
    ),
    keepAliveTimeout: 5_000,
  }
}

/** A failure to listen as one line: what was asked, what stands in the way, and what to do. */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): GatewayConfigError {
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`
  switch (error.code) {
    case "EADDRINUSE":
      return new GatewayConfigError(
        "gateway-port-in-use",
        `cannot listen on ${where}: another program (perhaps another promptline serve) already listens on port ${port}; stop it, or choose another port with --port or gateway.port (0 picks a free one)`,
      )
    case "EACCES":
    case "EPERM":
      return new GatewayConfigError(
        "gateway-port-denied",
        `cannot listen on ${where}: this user may not use port ${port} (ports below 1024 need privileges); choose a port from 1024 up with --port or gateway.port`,
      )
    case "EADDRNOTAVAIL":
      return new GatewayConfigError(
        "gateway-listen-failed",
        `cannot listen on ${where}: ${host} is not an address of this machine; give one of its own with --host or gateway.host (127.0.0.1 for this machine only)`,
      )
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_FAIL":
    case "EAI_NONAME":
      return new GatewayConfigError(
        "gateway-listen-failed",
        `cannot listen on ${where}: the host name ${host} does not resolve to an address; give an address or a known name with --host or gateway.host`,
      )
    default:
      return new GatewayConfigError(
        "gateway-listen-failed",
        `cannot listen on ${where}: ${error.code ? `${error.code}, ` : ""}${error.message}`,
      )
  }
}

/** Listens on the settings' host and port; rejects with a GatewayConfigError that names the fix. */
export function listen(http: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, host, port))
    http.once("error", failed)
    try {
      http.listen(port, host, () => {
        http.off("error", failed)
        resolve()
      })
    } catch (error) {
      // A port or host Node refuses outright (out of range, not a string) throws rather than emitting.
      http.off("error", failed)
      reject(listenError(error as NodeJS.ErrnoException, host, port))
    }
  })
}
