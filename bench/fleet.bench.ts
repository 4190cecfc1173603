// bench/fleet: several `promptline serve` instances behind a load balancer. bench/gateway's 200-turn cache replay
// with the route's `fit: true` (bench/cache-replay.ts; the replay server's cache simulation as the upstream) sent
// (a) to one instance, (b) to two instances behind a round-robin proxy sharing a Redis store (a real redis-server on
// a free loopback port), and (c) to two instances behind the same proxy, each with its own memory store: the cache
// miss a shared store fixes. Every instance is a child process (built dist/); the proxy is a plain Node.js HTTP proxy
// in this process that sends request n to instance n mod 2.

import { createServer, request, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import {
  findRedisServer,
  REDIS_INSTALL,
  type RedisServer,
  startRedis,
} from "../src/gateway/test-helpers/redis-server.js"
import { type ReplayServer, startReplayServer } from "../src/replay/server.js"
import { cacheReplay } from "./cache-replay.js"
import { type ProxyProcess, startPromptline } from "./gateway-procs.js"
import type { Benchmark, Metric } from "./harness.js"

/** A round-robin HTTP proxy: request n goes to `targets[n % targets.length]`, bodies and answers streamed through. */
async function roundRobin(targets: string[]): Promise<{ url: string; close(): Promise<void> }> {
  let next = 0
  const server: Server = createServer((req, res) => {
    const target = new URL(req.url ?? "/", targets[next++ % targets.length])
    const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on("error", (error) => {
      res.writeHead(502, { "content-type": "text/plain" })
      res.end(`the round-robin proxy could not reach ${target.origin}: ${error.message}`)
    })
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const fleet: Benchmark = {
  name: "fleet",
  async run(): Promise<Metric[]> {
    const binary = findRedisServer()
    if (!binary) throw new Error(`bench/fleet needs redis-server: ${REDIS_INSTALL}`)
    const clock = { now: 0, base: 0 }
    const simulated: ReplayServer = await startReplayServer({
      script: { version: 1, turns: [{ text: "Done: the config is parsed in src/config/config.ts." }] },
      loop: true,
      keepRequests: 16,
      cache: "simulate",
      now: () => clock.now,
    })
    let redis: RedisServer | undefined
    const instances: ProxyProcess[] = []
    const start = async (store?: Record<string, unknown>) => {
      const instance = await startPromptline({
        upstreams: { cached: { provider: "anthropic", baseUrl: simulated.url } },
        routes: [
          {
            match: "bench-cache-fit",
            upstream: "cached",
            model: "claude-sonnet-4-5",
            mode: "translate",
            cache: "optimize",
            fit: true,
          },
        ],
        ...(store ? { store } : {}),
      })
      instances.push(instance)
      return instance
    }
    /** The replay's cache share through `targets` (one URL: straight to it; several: behind the round-robin proxy). */
    const replay = async (targets: ProxyProcess[]) => {
      const proxy = targets.length > 1 ? await roundRobin(targets.map((t) => t.url)) : undefined
      try {
        return (await cacheReplay(proxy?.url ?? targets[0]!.url, "bench-cache-fit", clock, simulated)).share
      } finally {
        await proxy?.close()
        for (const t of targets) await t.stop()
      }
    }
    try {
      redis = await startRedis(binary)
      const one = await replay([await start()])
      const store = { kind: "redis", url: redis.url, keyPrefix: "bench-fleet:" }
      const shared = await replay([await start(store), await start(store)])
      const apart = await replay([await start(), await start()])
      const name = (what: string) => `cache reads, share of input tokens, 200-turn fitted replay, ${what}`
      return [
        { name: name("one instance"), unit: "%", ours: one, better: "higher" },
        {
          name: name("two instances round-robin, Redis store"),
          unit: "%",
          ours: shared,
          peer: { name: "one instance", value: one },
          better: "higher",
          target: "the same share as one instance (within 0.1 point)",
          met: Math.abs(shared - one) <= 0.1,
        },
        {
          name: name("two instances round-robin, a memory store each"),
          unit: "%",
          ours: apart,
          peer: { name: "one instance", value: one },
          better: "higher",
        },
      ]
    } finally {
      for (const instance of instances) await instance.stop()
      await redis?.stop()
      await simulated.close()
    }
  },
}

export default fleet
