/**
 * The gateway config a launch runs with. The agent holds only the launch's token, so every upstream takes its key
 * from the gateway's environment: the upstream's `keyEnv`, else its provider's own variable. With no routes in the
 * user's config, every model goes to the official provider of the client API the agent speaks, with that key.
 */
import type { GatewayConfig, UpstreamConfig } from "../config/gateway.js"
import { routeLinks } from "../config/gateway-routes.js"
import { PromptlineError } from "../errors.js"
import { officialProvider } from "../gateway/routing.js"
import { providerInfo } from "../providers/endpoints.js"
import type { BuiltInShape } from "../providers/formats.js"
import { LAUNCH_TOKEN_ENV } from "./launch-agents.js"

/** The first of a provider's key variables that is set, or undefined (none set, or no key needed or known). */
function providerKeyEnv(provider: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  return providerInfo(provider)?.keyEnv.find((name) => env[name] !== undefined && env[name] !== "")
}

/** The key variables a provider reads, when it needs a key and none of them is set; else an empty list. */
function missingKeys(provider: string, env: Readonly<Record<string, string | undefined>>): readonly string[] {
  const info = providerInfo(provider)
  if (!info || info.local || info.keyEnv.length === 0 || providerKeyEnv(provider, env)) return []
  return info.keyEnv
}

/**
 * The user's gateway section for a launch: the token variable set to the launch's, each upstream without `keyEnv`
 * given its provider's variable, and with no routes one route for every model to the official provider of
 * `format`. Refuses, naming the variables, an upstream the agent's requests may reach that would go without a key.
 */
export function launchGatewayConfig(
  config: GatewayConfig | undefined,
  format: BuiltInShape,
  env: Readonly<Record<string, string | undefined>>,
): GatewayConfig {
  const routes = config?.routes ?? []
  if (routes.length === 0) {
    const provider = officialProvider(format)!
    const missing = missingKeys(provider, env)
    if (missing.length > 0)
      throw new PromptlineError(
        "missing-api-key",
        `the gateway sends the agent's requests to ${providerInfo(provider)!.name} with your key, and none is set: set ${missing.join(" or ")}, or route the models to an upstream in your config (gateway.routes and gateway.upstreams)`,
      )
    const upstream: UpstreamConfig = { provider, format }
    const keyEnv = providerKeyEnv(provider, env)
    if (keyEnv) upstream.keyEnv = keyEnv
    return {
      ...config,
      tokenEnv: LAUNCH_TOKEN_ENV,
      upstreams: { [provider]: upstream },
      routes: [{ match: "*", upstream: provider }],
    }
  }
  const routed = new Set(routes.flatMap((r) => routeLinks(r).map((link) => link.upstream)))
  const upstreams: Record<string, UpstreamConfig> = {}
  for (const [name, upstream] of Object.entries(config?.upstreams ?? {})) {
    if (upstream.keyEnv !== undefined) {
      upstreams[name] = upstream
      continue
    }
    const keyEnv = providerKeyEnv(upstream.provider, env)
    const missing = upstream.baseUrl === undefined ? missingKeys(upstream.provider, env) : []
    if (routed.has(name) && missing.length > 0)
      throw new PromptlineError(
        "missing-api-key",
        `gateway.upstreams.${name} has no keyEnv and none of ${missing.join(", ")} is set: the agent holds only the launch's token, so the gateway needs the key; set one of them, or give the upstream a keyEnv`,
      )
    upstreams[name] = keyEnv ? { ...upstream, keyEnv } : upstream
  }
  return { ...config, tokenEnv: LAUNCH_TOKEN_ENV, upstreams }
}
