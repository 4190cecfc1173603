/**
 * Several gateway instances sharing one state store cut a fitted conversation in the same place: a conversation
 * replayed turn by turn, alternating between two gateways, sends upstream byte for byte what one gateway sends
 * alone, with the store in one process's memory or in a real Redis. Two gateways each with its own memory store
 * do not (the miss the shared store fixes). A Redis that goes down mid-run costs no request; one that is down at
 * start stops `promptline serve` with one line.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { generateHistory } from "../../test/fixtures/history/generate.js"
import { main } from "../cli/main.js"
import type { GatewayConfig } from "../config/gateway.js"
import type { Message } from "../history/message.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"
import { formatModule } from "../providers/formats.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"
import { MemoryStateStore, type StateStore } from "./state-store.js"
import { type RedisServer, redisServerOrSkip, startRedis } from "./test-helpers/redis-server.js"

const binary = redisServerOrSkip()

/** A model with a small window, so the replayed conversation is cut many times. */
const SMALL: ModelInfo = {
  id: "fit-small",
  provider: "anthropic",
  family: "claude",
  contextWindow: 12_000,
  maxOutput: 1_000,
  tokenizer: "claude",
  capabilities: { nativeTools: true, images: false, thinking: false },
  source: "test",
}

const HISTORY = generateHistory({ messages: 81, seed: 11, fileLines: 40 })
const DAY = Date.UTC(2026, 11, 3, 12)

/** The conversation up to its `k`th message, as an Anthropic client sends it (no cache markers). */
function body(messages: readonly Message[]): string {
  const { body } = formatModule("anthropic").encode({
    prompt: { text: "You are a coding agent. Keep edits small.", tools: [] },
    messages,
    model: resolveModel("claude-sonnet-4-5").model,
    options: { stream: true, maxTokens: 500, cache: false },
  })
  return JSON.stringify({ ...(body as object), model: "fit-small" })
}

let replay: ReplayServer
const running: Gateway[] = []
beforeAll(async () => {
  replay = await startReplayServer({ script: { version: 1, turns: [{ text: "ok" }] }, loop: true, keepRequests: 4 })
})
afterAll(async () => {
  await replay.close()
})
afterEach(async () => {
  for (const gateway of running.splice(0)) await gateway.close(0)
})

const config = (store?: GatewayConfig["store"]): GatewayConfig => ({
  port: 0,
  upstreams: { up: { provider: "anthropic", baseUrl: replay.url } },
  routes: [{ match: "fit-small", upstream: "up", mode: "translate", fit: true }],
  ...(store ? { store } : {}),
})

/** Starts a gateway whose records (and failures) are collected. */
async function gateway(options: { store?: GatewayConfig["store"]; stateStore?: StateStore } = {}) {
  const records: GatewayRecord[] = []
  const errors: { where: string; code: unknown; message: string }[] = []
  const gw = await startGateway({
    config: config(options.store),
    env: {},
    models: [SMALL],
    clock: () => DAY,
    ...(options.stateStore ? { stateStore: options.stateStore } : {}),
    onRequest: (r) => records.push(r),
    onError: (error, where) => errors.push({ where, code: (error as { code?: unknown }).code, message: error.message }),
  })
  running.push(gw)
  return { gw, records, errors }
}

/** Replays the conversation turn by turn, turn `t` through `gateways[t % n]`; what went upstream each turn. */
async function replayThrough(gateways: { gw: Gateway; records: GatewayRecord[] }[], turns = HISTORY.length) {
  const sent: string[] = []
  for (let k = 1, t = 0; k <= turns; k += 2, t++) {
    const { gw, records } = gateways[t % gateways.length]!
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "sk-client", "anthropic-version": "2023-06-01" },
      body: body(HISTORY.slice(0, k)),
    })
    expect(res.status).toBe(200)
    await res.text()
    sent.push(JSON.stringify(records.at(-1)!.sent!.body))
  }
  return sent
}

/** How many turns were cut (fewer messages sent than the client had). */
const cutTurns = (sent: string[]) =>
  sent.filter((s, t) => (JSON.parse(s) as { messages: unknown[] }).messages.length < 2 * t + 1).length

// Each test replays a conversation of 41 turns once or twice: more than the default 30 s on a busy machine.
describe("gateways sharing a state store", { timeout: 120_000 }, () => {
  it("cut a fitted conversation where one gateway alone cuts it, with the store in memory", async () => {
    const alone = await replayThrough([await gateway()])
    // The conversation outgrows the window: many turns are cut, and a cut moves as the conversation grows.
    expect(cutTurns(alone)).toBeGreaterThan(10)
    const shared = new MemoryStateStore()
    const pair = await replayThrough([await gateway({ stateStore: shared }), await gateway({ stateStore: shared })])
    expect(pair).toEqual(alone)
  })

  it("each with a store of its own cut it elsewhere: the cached prefix moves", async () => {
    const alone = await replayThrough([await gateway()])
    const apart = await replayThrough([await gateway(), await gateway()])
    expect(apart.filter((s, t) => s !== alone[t]).length).toBeGreaterThan(0)
  })
})

describe.skipIf(!binary)("gateways sharing Redis (a real redis-server)", { timeout: 120_000 }, () => {
  let redis: RedisServer
  let dir: string
  beforeAll(async () => {
    redis = await startRedis(binary!)
    dir = await mkdtemp(join(tmpdir(), "pl-shared-state-"))
  })
  afterAll(async () => {
    await redis?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it("cut a fitted conversation where one gateway alone cuts it, and count the usage of both", async () => {
    const alone = await replayThrough([await gateway()])
    const store = { kind: "redis" as const, url: redis.url, keyPrefix: "pair:" }
    const a = await gateway({ store })
    const b = await gateway({ store })
    expect(a.gw.stateStore.kind).toBe("redis")
    const pair = await replayThrough([a, b])
    expect(pair).toEqual(alone)
    expect([...a.errors, ...b.errors]).toEqual([])
    const rows = await a.gw.stateStore.usage("2026-12-03")
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ upstream: "up", model: "fit-small", requests: alone.length })
    expect(rows[0]!.input).toBeGreaterThan(0)
  })

  it("go on with their own state when Redis goes down mid-run, and say so once", async () => {
    const own = await startRedis(binary!)
    const store = { kind: "redis" as const, url: own.url, timeoutMs: 200 }
    try {
      const a = await gateway({ store })
      const b = await gateway({ store })
      await replayThrough([a, b], 21)
      await own.stop()
      // Every request still succeeds (replayThrough checks each status).
      await replayThrough([a, b], 41)
      for (const { errors } of [a, b]) {
        expect(errors).toHaveLength(1)
        expect(errors[0]).toMatchObject({ where: "shared-state", code: "gateway-state-degraded" })
        expect(errors[0]!.message).toMatch(
          /^shared state degraded: the Redis store at redis:\/\/127\.0\.0\.1:\d+ failed/,
        )
      }
    } finally {
      await own.stop()
    }
  })

  it("promptline serve names the store at start and prints one line when it fails mid-run", async () => {
    const own = await startRedis(binary!, { password: "pw-fake-serve-0123456789" })
    try {
      const file = join(dir, "serve.json")
      await writeFile(file, JSON.stringify({ gateway: config({ kind: "redis", url: own.url, timeoutMs: 200 }) }))
      let stdout = ""
      let stderr = ""
      let ended = false
      const io = {
        stdout: (t: string) => {
          stdout += t
        },
        stderr: (t: string) => {
          stderr += t
        },
        cwd: dir,
        env: { HOME: dir },
        today: () => "2026-12-03",
      }
      const serving = main(["serve", "--config", file], io).finally(() => {
        ended = true
      })
      // Waits for the start line by yielding to the event loop, with no clock involved.
      while (!ended && !/gateway on (\S+)/.test(stdout)) await new Promise((r) => setImmediate(r))
      const url = /gateway on (\S+)/.exec(stdout)![1]!
      await own.stop()
      const res = await fetch(`${url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "sk-client" },
        body: body(HISTORY.slice(0, 41)),
      })
      expect(res.status).toBe(200)
      await res.text()
      process.emit("SIGTERM")
      expect(await serving).toBe(0)
      expect(stdout).toContain(
        `  state         redis://[redacted]@127.0.0.1:${own.port} (shared with other instances)\n`,
      )
      expect(stderr).toMatch(
        /^error while serving \(shared-state\): shared state degraded: the Redis store at redis:\/\/\[redacted\]@127\.0\.0\.1:\d+ failed \(.+\); requests go on with this instance's own state \[gateway-state-degraded\]\n$/,
      )
      expect(stdout + stderr).not.toContain("pw-fake-serve")
    } finally {
      await own.stop()
    }
  })

  it("refuse to start when Redis is down: one line, exit status 1, no password", async () => {
    const down = await startRedis(binary!)
    await down.stop()
    const password = "pw-fake-0123456789"
    const url = `redis://gw:${password}@127.0.0.1:${down.port}`
    await expect(startGateway({ config: config({ kind: "redis", url }), env: {} })).rejects.toMatchObject({
      code: "gateway-state-unreachable",
    })
    const file = join(dir, "gw.json")
    await writeFile(file, JSON.stringify({ gateway: config({ kind: "redis", url }) }))
    let stderr = ""
    let stdout = ""
    const code = await main(["serve", "--config", file], {
      stdout: (t: string) => {
        stdout += t
      },
      stderr: (t: string) => {
        stderr += t
      },
      cwd: dir,
      env: { HOME: dir },
      today: () => "2026-12-03",
    })
    expect(code).toBe(1)
    expect(stdout).toBe("")
    expect(stderr).toMatch(
      new RegExp(
        `^promptline: cannot reach the shared state store at redis://\\[redacted\\]@127\\.0\\.0\\.1:${down.port} \\(gateway\\.store\\.url\\): .*ECONNREFUSED.*\\n$`,
      ),
    )
    expect(stderr).not.toContain(password)
  })
})
