/** The gateway's settings in force: the config's `gateway` section, command-line overrides, and safe defaults. */

import type { GatewayConfig } from "../config/gateway.js"
import { PromptlineError } from "../errors.js"
import { isLoopbackHost } from "../http-url.js"
import { endpointFor } from "../providers/endpoints.js"

/** The port `promptline serve` listens on by default. */
export const DEFAULT_PORT = 8788
/** The largest request body accepted by default (32 MiB, Anthropic's own limit). */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024

/** How long a client may take to send a request's headers by default (Node's own `headersTimeout`). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000
/** How long a client may take to send a request's body by default (Node's own `requestTimeout`). */
export const DEFAULT_BODY_TIMEOUT_MS = 300_000

/** When an upstream's circuit opens, and how long it rests (docs/gateway.md, "Circuit breaker"). */
export interface BreakerPolicy {
  /** Failures within `windowMs`, with no success between, that open the circuit. */
  failures: number
  windowMs: number
  /** The first rest; each half-open probe that fails doubles it, up to `maxCooldownMs`. */
  cooldownMs: number
  maxCooldownMs: number
}

/** How a route with several upstreams falls back (docs/gateway.md, "Fallbacks"). */
export interface FallbackPolicy {
  /** How long an upstream with a next one may take to send its headers before the next is tried. */
  headersTimeoutMs: number
  /** A `retry-after` at most this long is waited out and the same upstream asked once more. */
  retryAfterMaxMs: number
  breaker: BreakerPolicy
}

/** The breaker's defaults: 3 failures in a minute open a circuit for 30 s, doubling up to 10 minutes. */
export const DEFAULT_BREAKER: BreakerPolicy = {
  failures: 3,
  windowMs: 60_000,
  cooldownMs: 30_000,
  maxCooldownMs: 600_000,
}
/** The longest `retry-after` waited out by default. */
export const DEFAULT_RETRY_AFTER_MAX_MS = 2_000

/** Settings in force. */
export interface GatewaySettings {
  host: string
  port: number
  /** The token clients must send; absent when none is required (loopback only). */
  token?: string
  bodyLimit: number
  connectTimeoutMs: number
  idleTimeoutMs: number
  /** How long a client may take to send the headers of a request (a silent or trickling socket is closed). */
  headersTimeoutMs: number
  /** How long a client may take to send a body once its headers are in (then 408 in its shape). */
  bodyTimeoutMs: number
  shutdownGraceMs: number
  fallback: FallbackPolicy
}

/** A setting that makes the gateway unsafe or unusable; the message names the field or flag and the fix. */
export class GatewayConfigError extends PromptlineError {}

/** The fallback policy of a config, its defaults filled in. */
function fallbackPolicy(config: GatewayConfig | undefined): FallbackPolicy {
  const given = config?.fallback
  const breaker = { ...DEFAULT_BREAKER }
  for (const [name, value] of Object.entries(given?.breaker ?? {}))
    if (value !== undefined) breaker[name as keyof BreakerPolicy] = value
  breaker.maxCooldownMs = Math.max(breaker.maxCooldownMs, breaker.cooldownMs)
  return {
    headersTimeoutMs: given?.headersTimeoutMs ?? config?.idleTimeoutMs ?? 300_000,
    retryAfterMaxMs: given?.retryAfterMaxMs ?? DEFAULT_RETRY_AFTER_MAX_MS,
    breaker,
  }
}

/**
 * Resolves the settings; refuses a non-loopback host without an inbound token, a token variable that is not
 * set, an upstream key variable that is not set, and an upstream that cannot be reached as configured.
 */
export function resolveSettings(
  config: GatewayConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
  overrides: { host?: string; port?: number } = {},
): GatewaySettings {
  const host = overrides.host ?? config?.host ?? "127.0.0.1"
  const settings: GatewaySettings = {
    host,
    port: overrides.port ?? config?.port ?? DEFAULT_PORT,
    bodyLimit: config?.bodyLimit ?? DEFAULT_BODY_LIMIT,
    connectTimeoutMs: config?.connectTimeoutMs ?? 10_000,
    idleTimeoutMs: config?.idleTimeoutMs ?? 300_000,
    headersTimeoutMs: config?.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    bodyTimeoutMs: config?.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    shutdownGraceMs: config?.shutdownGraceMs ?? 10_000,
    fallback: fallbackPolicy(config),
  }
  if (config?.tokenEnv !== undefined) {
    const token = env[config.tokenEnv]
    if (token === undefined || token.trim() === "")
      throw new GatewayConfigError(
        "gateway-token-missing",
        `gateway.tokenEnv names ${config.tokenEnv}, which is not set`,
      )
    settings.token = token.trim()
  }
  if (!isLoopbackHost(host) && settings.token === undefined)
    throw new GatewayConfigError(
      "gateway-unsafe-host",
      `listening on ${host} lets other machines in: set gateway.tokenEnv to an environment variable holding the token clients must send`,
    )
  for (const [name, upstream] of Object.entries(config?.upstreams ?? {})) {
    if (upstream.keyEnv !== undefined && !env[upstream.keyEnv])
      throw new GatewayConfigError(
        "gateway-key-missing",
        `gateway.upstreams.${name}.keyEnv names ${upstream.keyEnv}, which is not set`,
      )
    try {
      endpointFor({
        provider: upstream.provider,
        ...(upstream.format ? { format: upstream.format } : {}),
        ...(upstream.baseUrl ? { baseUrl: upstream.baseUrl } : {}),
        env: {},
        apiKey: "",
      })
    } catch (error) {
      throw new GatewayConfigError("gateway-upstream-invalid", `gateway.upstreams.${name}: ${(error as Error).message}`)
    }
  }
  return settings
}
