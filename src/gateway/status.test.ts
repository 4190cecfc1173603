/**
 * The gateway's live status (`/promptline/status.json` and its page) after real requests through the gateway to
 * the replay server, and who may read it: with a token only with the token, without one only at a loopback name.
 */
import { request } from "node:http"
import { afterEach, describe, expect, it } from "vitest"
import { usageLine } from "../cache/usage-text.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { scriptOf } from "../replay/test-helpers/fixtures.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"
import { GatewayStatus, type GatewayStatusSnapshot, RECENT_REQUESTS } from "./status.js"

let replay: ReplayServer | undefined
let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close(0)
  await replay?.close()
  gateway = replay = undefined
})

const START = Date.UTC(2026, 11, 1, 9)
const SECRET_PROMPT = "the secret plan is in vault 7"
const usage = { input: 2000, output: 1000, cacheRead: 8000, cacheWrite: 0 }

/** A gateway with two upstreams on the replay server answering `turns`; `token` in GATEWAY_TOKEN when given. */
async function start(turns: Parameters<typeof scriptOf>, token?: string): Promise<GatewayRecord[]> {
  replay = await startReplayServer({ script: scriptOf(...turns) })
  const records: GatewayRecord[] = []
  let now = START
  gateway = await startGateway({
    config: {
      port: 0,
      ...(token ? { tokenEnv: "GATEWAY_TOKEN" } : {}),
      upstreams: {
        main: { provider: "anthropic", format: "anthropic", baseUrl: replay.url, keyEnv: "K" },
        spare: { provider: "openai", format: "openai-chat", baseUrl: `${replay.url}/v1`, keyEnv: "K" },
      },
      routes: [{ match: "*", upstream: "main" }],
    },
    env: { K: "sk-fake-status-key-0000", ...(token ? { GATEWAY_TOKEN: token } : {}) },
    clock: () => (now += 1000),
    onRequest: (r) => records.push(r),
  })
  return records
}

async function ask(model: string, headers: Record<string, string> = {}): Promise<number> {
  const answer = await fetch(`${gateway!.urls.anthropic}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify({ model, max_tokens: 10, messages: [{ role: "user", content: SECRET_PROMPT }] }),
  })
  await answer.text()
  return answer.status
}

/** A GET with a Host header of our choosing (fetch does not let one set it). */
function get(path: string, headers: Record<string, string> = {}, method = "GET") {
  const { port } = new URL(gateway!.url)
  return new Promise<{ status: number; type: string; body: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (c: string) => {
          body += c
        })
        res.on("end", () =>
          resolve({ status: res.statusCode!, type: String(res.headers["content-type"]), body, headers: res.headers }),
        )
      })
      req.on("error", reject)
      req.end()
    },
  )
}

describe("the gateway's status", () => {
  it("sums what went through: requests, tokens, cached share, cost so far, errors, each upstream's health", async () => {
    const records = await start([
      { text: "ok", usage },
      { text: "ok", usage, faults: [{ kind: "rate-limit", retryAfter: 0 }] },
      { text: "ok", usage },
    ])
    expect(await ask("claude-sonnet-4-5")).toBe(200)
    expect(await ask("claude-sonnet-4-5")).toBe(429)
    expect(await ask("claude-sonnet-4-5")).toBe(200)
    expect(await ask("house-model")).toBe(200)
    const answer = await get("/promptline/status.json")
    expect(answer.status).toBe(200)
    expect(answer.type).toBe("application/json")
    expect(answer.headers["cache-control"]).toBe("no-store")
    const status = JSON.parse(answer.body) as GatewayStatusSnapshot
    expect(status).toMatchObject({ v: 1, startedAt: START + 1000 })
    expect(status.totals).toMatchObject({
      requests: 4,
      errors: 1,
      tokens: { input: 6000, cacheRead: 24_000, cacheWrite: 0, output: 3000 },
      cost: { priced: 2, unpriced: 1, unpricedModels: ["house-model"] },
    })
    expect(status.totals.cachedShare).toBeCloseTo(0.8, 12)
    // Two priced requests at $3 input, $0.30 cache read, $15 output per million.
    expect(status.totals.cost.total).toBeCloseTo(2 * (0.006 + 0.0024 + 0.015), 12)
    expect(status.upstreams).toEqual([
      {
        name: "main",
        provider: "anthropic",
        format: "anthropic",
        requests: 4,
        errors: 1,
        lastStatus: 200,
        lastAt: records[3]!.startedAt,
        lastError: "rate-limit",
      },
      { name: "spare", provider: "openai", format: "openai-chat", requests: 0, errors: 0 },
    ])
    expect(status.recent.map((r) => [r.seq, r.status, r.error, r.cost === null])).toEqual([
      [4, 200, undefined, true],
      [3, 200, undefined, false],
      [2, 429, "rate-limit", false],
      [1, 200, undefined, false],
    ])
    expect(status.recent[1]!.cost!.total).toBeCloseTo(0.0234, 12)
    expect(status.recent[2]).not.toHaveProperty("cost")
    // Nothing of the requests' content, no key, no error message.
    for (const text of [answer.body, (await get("/promptline/status")).body]) {
      expect(text).not.toContain("vault 7")
      expect(text).not.toContain("sk-fake-status-key")
      expect(text).not.toContain("injected by the replay script")
    }
    // The status requests themselves are not requests through the gateway.
    expect(records).toHaveLength(4)
    expect(gateway!.usage()).toEqual(status.totals)
    expect(usageLine(gateway!.usage())).toBe(
      "promptline: 4 requests · in 30,000 tokens (80% cached) · out 3,000 · $0.0468 + $? (1 request without a price) · 1 error",
    )
  })

  it("keeps the most recent requests only, newest first", async () => {
    const turns = Array.from({ length: RECENT_REQUESTS + 5 }, () => ({ text: "ok", usage }))
    await start(turns as Parameters<typeof scriptOf>)
    for (let i = 0; i < turns.length; i++) await ask("claude-sonnet-4-5")
    const status = JSON.parse((await get("/promptline/status.json")).body) as GatewayStatusSnapshot
    expect(status.totals.requests).toBe(RECENT_REQUESTS + 5)
    expect(status.recent.map((r) => r.seq)).toEqual(
      Array.from({ length: RECENT_REQUESTS }, (_, i) => RECENT_REQUESTS + 5 - i),
    )
  })

  it("counts every request of a burst; a hook that throws is reported and loses no record", async () => {
    replay = await startReplayServer({ script: { version: 1, turns: [{ text: "ok" }] }, loop: true })
    const seen: number[] = []
    const failures: string[] = []
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { main: { provider: "anthropic", baseUrl: replay.url, keyEnv: "K" } },
        routes: [{ match: "*", upstream: "main" }],
      },
      env: { K: "sk-fake-status-key-0000" },
      onRequest: (r) => {
        seen.push(r.seq)
        // A hook that throws is reported; the records handed on with it are not lost.
        if (r.seq % 2 === 0) throw new Error(`hook failed on ${r.seq}`)
      },
      onError: (error, where) => failures.push(`${where}: ${error.message}`),
    })
    const statuses = await Promise.all(Array.from({ length: 40 }, () => ask("claude-sonnet-4-5")))
    expect(statuses.every((s) => s === 200)).toBe(true)
    const snapshot = gateway.status()
    expect(snapshot.totals.requests).toBe(40)
    expect(snapshot.upstreams[0]).toMatchObject({ name: "main", requests: 40, errors: 0 })
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
    expect(failures).toHaveLength(20)
    expect(failures.every((f) => /^record: hook failed on \d+$/.test(f))).toBe(true)
  })

  it("without a token, answers only at a loopback name: a rebound DNS name gets 403", async () => {
    await start([{ text: "ok" }])
    const { port } = new URL(gateway!.url)
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "127.0.0.1", "[::1]:1"])
      expect((await get("/promptline/status", { host })).status, host).toBe(200)
    for (const host of [`evil.example:${port}`, "evil.example", "127.0.0.1.evil.example", "localhost.evil.example"]) {
      const refused = await get("/promptline/status.json", { host })
      expect(refused.status, host).toBe(403)
      expect(JSON.parse(refused.body).error.message).toMatch(/to this machine only, at a loopback address/)
    }
    const posted = await get("/promptline/status", {}, "POST")
    expect(posted).toMatchObject({ status: 405, headers: { allow: "GET, HEAD" } })
    const head = await get("/promptline/status", {}, "HEAD")
    expect(head).toMatchObject({ status: 200, body: "" })
  })

  it("with a token, requires it as every API route does: in a credential header or ?key=", async () => {
    const token = "gateway-token-0123456789"
    await start([{ text: "ok", usage }], token)
    expect(await ask("claude-sonnet-4-5", { "x-api-key": token })).toBe(200)
    const wrong: Record<string, string>[] = [{}, { authorization: "Bearer nope" }, { "x-api-key": `${token}x` }]
    for (const headers of wrong) {
      const refused = await get("/promptline/status.json", headers)
      expect(refused.status).toBe(401)
      expect(refused.body).not.toContain(token)
    }
    expect((await get(`/promptline/status?key=wrong`)).status).toBe(401)
    expect((await get("/promptline/status.json", { authorization: `Bearer ${token}` })).status).toBe(200)
    expect((await get("/promptline/status.json", { "x-api-key": token })).status).toBe(200)
    const page = await get(`/promptline/status?key=${token}`)
    expect(page.status).toBe(200)
    expect(page.headers["referrer-policy"]).toBe("no-referrer")
    // The page never writes the token back.
    expect(page.body).not.toContain(token)
  })
})

describe("upstream health", () => {
  it("shows what a circuit breaker sets for an upstream, and clears it", async () => {
    const status = new GatewayStatus({
      startedAt: START,
      upstreams: { main: { provider: "anthropic" } },
    })
    status.setCircuit("main", { state: "open", detail: "5 failures in a row; tried again at 09:01:00" })
    status.setCircuit("nowhere", { state: "open" })
    expect(status.snapshot(START).upstreams).toEqual([
      {
        name: "main",
        provider: "anthropic",
        requests: 0,
        errors: 0,
        circuit: { state: "open", detail: "5 failures in a row; tried again at 09:01:00" },
      },
    ])
    status.setCircuit("main", undefined)
    expect(status.snapshot(START).upstreams[0]).not.toHaveProperty("circuit")
  })
})
