/**
 * The `gateway` section of `promptline.config.json`: the upstreams `promptline serve` may call, the routes
 * from a client's model name to an upstream and model, and the server's limits. Every field is optional; the
 * defaults are safe (loopback only, bounded bodies and waits).
 */
import type * as Zod from "zod"
import { lazyModule, lazyObject, lazyValue } from "../lazy-module.js"
import { isWireFormat, wireFormats } from "../providers/descriptors.js"

/** zod's CommonJS build, loaded when a config file is validated (the same copy `config.ts` uses). */
const zod = lazyModule<typeof Zod>("zod")

/** The section's schemas, built on the first validation (zod is loaded then, not at import). */
function makeSchemas() {
  const { z } = zod()

  /** An environment variable name. */
  const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name ([A-Za-z_][A-Za-z0-9_]*)")

  const upstreamSchema = z
    .object({
      /** A provider id of the registry (`anthropic`, `openai`, `gemini`, `deepseek`, `ollama`, …) or any name with a baseUrl. */
      provider: z.string().min(1),
      /** The wire format to speak to it (built-in or registered when the config is read); default the provider's own. */
      format: z
        .string()
        .refine(isWireFormat, {
          error: (issue) =>
            `unknown wire format ${JSON.stringify(issue.input)} (the wire formats are: ${wireFormats().join(", ")})`,
        })
        .optional(),
      /** Default the provider's official endpoint. */
      baseUrl: z.string().url().optional(),
      /** The environment variable holding the upstream's key; absent: the key the client sent is forwarded. */
      keyEnv: envName.optional(),
    })
    .strict()

  /** One upstream of a route's fallback list: its name, or its name and the model to ask it for. */
  const linkSchema = z.union([
    z.string().min(1),
    z
      .object({
        /** The name of an upstream in `upstreams`. */
        upstream: z.string().min(1),
        /** The model to ask this upstream for; default the route's `model`, else the client's model name. */
        model: z.string().min(1).optional(),
      })
      .strict(),
  ])

  const routeSchema = z
    .object({
      /** The client's model name, or a glob pattern (`claude-*`, `*`). */
      match: z.string().min(1),
      /**
       * The name of an upstream in `upstreams`, or an ordered list of them (names, or `{ upstream, model }`): the
       * first is asked, the next ones in turn when one fails before any byte of an answer (docs/gateway.md).
       */
      upstream: z.union([z.string().min(1), z.array(linkSchema).min(1).max(8)]),
      /** The model to ask the upstream for; default the client's model name. */
      model: z.string().min(1).optional(),
      /** `same-format` forwards bytes unchanged; default: same-format when the client speaks the upstream's format. */
      mode: z.enum(["same-format", "translate"]).optional(),
      /** `optimize`: promptline places the cache breakpoints and derives an OpenAI prompt_cache_key (translate mode). */
      cache: z.literal("optimize").optional(),
      /** Fit the history to the upstream model's budget (translate mode). */
      fit: z.boolean().optional(),
      /**
       * A client's deferred tools, to an upstream without tool search (translate mode): `search` (default) offers the
       * ones loaded so far and answers the upstream's searches in the gateway; `send-all` sends every one.
       */
      deferredTools: z.enum(["search", "send-all"]).optional(),
    })
    .strict()

  const ms = z.number().int().positive()

  /**
   * Where the state several gateway instances share is kept: this process's memory (the default), or a Redis
   * server every instance reaches (fitted conversations' change logs, usage counters, circuit-breaker state).
   */
  const storeSchema = z
    .object({
      /** `memory` (default) or `redis`. */
      kind: z.enum(["memory", "redis"]),
      /** Redis: `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS. */
      url: z
        .string()
        .regex(/^rediss?:\/\/[^\s]+$/, "a redis:// or rediss:// URL")
        .optional(),
      /** Redis: put before every key, so several gateways (or programs) can share one Redis (default `promptline:`). */
      keyPrefix: z.string().min(1).max(100).optional(),
      /** Redis: how long a command may take before the request goes on with local state, in ms (default 500). */
      timeoutMs: ms.max(60_000).optional(),
      /** Redis: how long a conversation's state is kept after its last use, in seconds (default 86 400: a day). */
      ttlSeconds: z.number().int().positive().optional(),
    })
    .strict()
    .superRefine((store, ctx) => {
      if (store.kind === "redis" && store.url === undefined)
        ctx.addIssue({ code: "custom", path: ["url"], message: 'required with "kind": "redis"' })
      if (store.kind === "memory")
        for (const field of ["url", "keyPrefix", "timeoutMs", "ttlSeconds"] as const)
          if (store[field] !== undefined)
            ctx.addIssue({ code: "custom", path: [field], message: 'a Redis setting, not taken with "kind": "memory"' })
    })

  /** How a route with several upstreams falls back, and the circuit breaker that rests a failing upstream. */
  const fallbackSchema = z
    .object({
      /**
       * How long an upstream that has a next one may take to send its answer's headers before the next is tried,
       * in ms (default: `idleTimeoutMs`). The last upstream of a list waits `idleTimeoutMs`.
       */
      headersTimeoutMs: ms.optional(),
      /**
       * A `retry-after` at most this long is waited out and the same upstream asked once more; a longer one rests
       * the upstream until then and the next is tried, in ms (default 2 000; 0 never waits).
       */
      retryAfterMaxMs: z.number().int().min(0).max(60_000).optional(),
      breaker: z
        .object({
          /** Failures within `windowMs`, with no success between, that open an upstream's circuit (default 3). */
          failures: z.number().int().min(1).max(1000).optional(),
          /** The window failures are counted in, in ms (default 60 000). */
          windowMs: ms.optional(),
          /** How long an open circuit rests the upstream the first time, in ms (default 30 000). */
          cooldownMs: ms.optional(),
          /** The cap of the cooldown, which doubles each time a half-open probe fails, in ms (default 600 000). */
          maxCooldownMs: ms.optional(),
        })
        .strict()
        .optional(),
    })
    .strict()

  /** The schema of the `gateway` section. */
  const gateway = z
    .object({
      /** Interface to listen on (default 127.0.0.1); another one requires `tokenEnv`. */
      host: z.string().min(1).optional(),
      /** Port (default 8788; 0 picks a free one). */
      port: z.number().int().min(0).max(65535).optional(),
      /** The environment variable holding the token clients must send (Authorization or x-api-key). */
      tokenEnv: envName.optional(),
      /** The largest request body accepted, in bytes (default 32 MiB). */
      bodyLimit: z.number().int().positive().optional(),
      /** How long connecting to an upstream may take, in ms (default 10 000). */
      connectTimeoutMs: ms.optional(),
      /** How long an upstream may stay silent (before its headers or between chunks), in ms (default 300 000). */
      idleTimeoutMs: ms.optional(),
      /** How long a client may take to send a request's headers, in ms (default 60 000, Node's own). */
      headersTimeoutMs: ms.optional(),
      /** How long a client may take to send a request's body once its headers are in, in ms (default 300 000). */
      bodyTimeoutMs: ms.optional(),
      /** On SIGTERM, how long running answers may go on before they are cut, in ms (default 10 000). */
      shutdownGraceMs: z.number().int().min(0).optional(),
      upstreams: z
        .record(z.string().regex(/^[A-Za-z0-9_.-]+$/, "an upstream name is [A-Za-z0-9_.-]"), upstreamSchema)
        .optional(),
      /** Tried in order; the first whose `match` fits the client's model wins. */
      routes: z.array(routeSchema).optional(),
      /** The state shared with other gateway instances (default `{ "kind": "memory" }`: this process only). */
      store: storeSchema.optional(),
      /** How a route with several upstreams falls back, and when an upstream is rested (docs/gateway.md). */
      fallback: fallbackSchema.optional(),
    })
    .strict()
    .superRefine((gateway, ctx) => {
      for (const [i, route] of (gateway.routes ?? []).entries()) {
        const listed = typeof route.upstream !== "string"
        const links = typeof route.upstream === "string" ? [route.upstream] : route.upstream
        for (const [j, link] of links.entries()) {
          const name = typeof link === "string" ? link : link.upstream
          if (!gateway.upstreams?.[name])
            ctx.addIssue({
              code: "custom",
              path: listed ? ["routes", i, "upstream", j] : ["routes", i, "upstream"],
              message: `no upstream named "${name}" (the upstreams are: ${Object.keys(gateway.upstreams ?? {}).join(", ") || "none"})`,
            })
        }
      }
      const breaker = gateway.fallback?.breaker
      if (
        breaker?.cooldownMs !== undefined &&
        breaker.maxCooldownMs !== undefined &&
        breaker.maxCooldownMs < breaker.cooldownMs
      )
        ctx.addIssue({
          code: "custom",
          path: ["fallback", "breaker", "maxCooldownMs"],
          message: `is less than cooldownMs (${breaker.cooldownMs}); the cap must be at least the first cooldown`,
        })
    })
  return {
    upstream: upstreamSchema,
    route: routeSchema,
    link: linkSchema,
    store: storeSchema,
    fallback: fallbackSchema,
    gateway,
  }
}

const schemas = lazyValue(makeSchemas)

/** The schema of the `gateway` section (built on first use). */
export const gatewaySchema = lazyObject(() => schemas().gateway)

type Schemas = ReturnType<typeof makeSchemas>

/** The `gateway` section as written. */
export type GatewayConfig = Zod.infer<Schemas["gateway"]>
/** One upstream as written. */
export type UpstreamConfig = Zod.infer<Schemas["upstream"]>
/** One route as written. */
export type RouteConfig = Zod.infer<Schemas["route"]>
/** How a route offers a client's deferred tools to an upstream that cannot defer them. */
export type DeferredToolsMode = NonNullable<RouteConfig["deferredTools"]>
/** One upstream of a route's list as written. */
export type RouteLinkConfig = Zod.infer<Schemas["link"]>
/** The fallback and circuit-breaker policy as written. */
export type FallbackConfig = Zod.infer<Schemas["fallback"]>
/** The shared-state store as written. */
export type StateStoreConfig = Zod.infer<Schemas["store"]>
