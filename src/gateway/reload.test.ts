/**
 * Swapping a gateway's configuration without a restart (`Gateway.reload`), with fake upstreams on 127.0.0.1 and the
 * Anthropic SDK as the client: a valid config serves the next request, a request running across the swap finishes
 * with the config it began with, an invalid one is refused and the old one stays, and what only a restart changes
 * keeps its value.
 */
import Anthropic from "@anthropic-ai/sdk"
import { afterEach, describe, expect, it } from "vitest"
import type { GatewayConfig } from "../config/gateway.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"
import { GatewayConfigError } from "./settings.js"
import { type FaultUpstream, okText, startFaultUpstream } from "./test-helpers/fault-upstream.js"

let gateway: Gateway | undefined
const upstreams: FaultUpstream[] = []
afterEach(async () => {
  await gateway?.close(0)
  await Promise.all(upstreams.splice(0).map((u) => u.close()))
  gateway = undefined
})

/** Two upstreams, a and b, and a gateway routing every model to `to`. */
async function start(records: GatewayRecord[] = []) {
  const a = await startFaultUpstream("a", "anthropic")
  const b = await startFaultUpstream("b", "anthropic")
  upstreams.push(a, b)
  const config = (to: string, more: Partial<GatewayConfig> = {}): GatewayConfig => ({
    port: 0,
    upstreams: {
      a: { provider: "anthropic", baseUrl: a.url, keyEnv: "K" },
      b: { provider: "anthropic", baseUrl: b.url, keyEnv: "K" },
    },
    routes: [{ match: "*", upstream: to }],
    ...more,
  })
  gateway = await startGateway({
    config: config("a"),
    env: { K: "sk-fake-reload-key-000" },
    onRequest: (r) => records.push(r),
  })
  const client = new Anthropic({ baseURL: gateway.urls.anthropic, apiKey: "client-key", maxRetries: 0 })
  const ask = async () => {
    const answer = await client.messages.create({
      model: "claude-x",
      max_tokens: 8,
      messages: [{ role: "user", content: "hi" }],
    })
    return answer.content.map((b) => (b.type === "text" ? b.text : "")).join("")
  }
  return { a, b, config, ask, gateway }
}

describe("reloading the configuration", () => {
  it("serves the next request with a valid new config", async () => {
    const { config, ask, gateway } = await start()
    expect(await ask()).toBe(okText("a"))
    expect(gateway.reload({ config: config("b") })).toEqual({ kept: [] })
    expect(await ask()).toBe(okText("b"))
  })

  it("lets a request that is running finish with the config it began with", async () => {
    const records: GatewayRecord[] = []
    const { a, config, ask, gateway } = await start(records)
    let release!: () => void
    a.script({ until: new Promise<void>((resolve) => (release = resolve)) })
    const running = ask()
    for (let i = 0; i < 200 && a.bodies.length === 0; i++) await new Promise((r) => setTimeout(r, 5))
    gateway.reload({ config: config("b") })
    expect(await ask()).toBe(okText("b"))
    release()
    expect(await running).toBe(okText("a"))
    for (let i = 0; i < 200 && records.length < 2; i++) await new Promise((r) => setTimeout(r, 5))
    expect(records.map((r) => r.upstream?.name).sort()).toEqual(["a", "b"])
  })

  it("refuses a config the gateway would not start with, and keeps the one in force", async () => {
    const { config, ask, gateway } = await start()
    const broken = config("b", {
      upstreams: { b: { provider: "anthropic", baseUrl: "http://127.0.0.1:9", keyEnv: "UNSET" } },
    })
    expect(() => gateway.reload({ config: broken })).toThrow(GatewayConfigError)
    expect(() => gateway.reload({ config: broken })).toThrow(
      /gateway\.upstreams\.b\.keyEnv names UNSET, which is not set/,
    )
    expect(await ask()).toBe(okText("a"))
  })

  it("keeps host, port, token and store until a restart, and names them", async () => {
    const { config, ask, gateway } = await start()
    const port = gateway.settings.port
    const { kept } = gateway.reload({ config: config("b", { port: 1, bodyLimit: 1000 }) })
    expect(kept).toEqual(["port"])
    expect(gateway.settings.port).toBe(port)
    expect(gateway.settings.bodyLimit).toBe(1000)
    expect(await ask()).toBe(okText("b"))
    // A second reload with the same new port still names it: the gateway listens where it started.
    expect(gateway.reload({ config: config("a", { port: 1 }) }).kept).toEqual(["port"])
    expect(gateway.reload({ config: config("a") }).kept).toEqual([])
  })
})
