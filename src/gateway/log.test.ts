import { afterEach, describe, expect, it } from "vitest"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { scriptOf } from "../replay/test-helpers/fixtures.js"
import { logField, logJson, logLine } from "./log.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"

let gateway: Gateway | undefined
let replay: ReplayServer | undefined
afterEach(async () => {
  await gateway?.close(0)
  await replay?.close()
  gateway = replay = undefined
})

/** The log lines of requests whose bodies the gateway cannot read, with a route to an upstream never called. */
async function linesOf(requests: { type?: string; body: string }[]): Promise<string[]> {
  const records: GatewayRecord[] = []
  gateway = await startGateway({
    config: {
      port: 0,
      bodyLimit: 64,
      upstreams: { up: { provider: "openai", format: "openai-chat", baseUrl: "http://127.0.0.1:9/v1" } },
      routes: [{ match: "*", upstream: "up" }],
    },
    env: {},
    onRequest: (r) => records.push(r),
  })
  for (const { type, body } of requests)
    await fetch(`${gateway.urls.openai}/chat/completions`, {
      method: "POST",
      headers: type ? { "content-type": type } : {},
      body,
    }).then((r) => r.text())
  return records.map((r) => logLine(r))
}

describe("the log line", () => {
  it("shows `-` in the model slot when the body could not be read, never an empty field", async () => {
    const lines = await linesOf([
      { type: "application/json", body: "{not json" },
      { type: "text/plain", body: "{}" },
      { type: "application/json", body: JSON.stringify({ model: "m", messages: [{ content: "x".repeat(100) }] }) },
    ])
    expect(lines).toHaveLength(3)
    for (const line of lines) {
      expect(line).not.toMatch(/ {2}/)
      expect(line).toMatch(/^\S+ openai-chat → - - no usage \d+ ms 4\d\d invalid-request: /)
    }
    expect(lines.map((l) => l.match(/ms (\d+)/)![1])).toEqual(["400", "415", "413"])
  })

  it("keeps a client's model name and an error message on one line", async () => {
    const [line] = await linesOf([
      { type: "application/json", body: JSON.stringify({ model: "evil\n12:00:00.000 forged line", messages: [] }) },
    ])
    expect(line).not.toContain("\n")
    expect(line).toContain("evil 12:00:00.000 forged line")
    expect(logField("a\r\n\tb\u0000c\u2028d")).toBe("a b c d")
    expect(logField("   ")).toBe("-")
    expect(logField("x".repeat(300))).toHaveLength(200)
  })

  it("ends the token figures with the request's cost at catalog prices, `$?` for a model without a price", async () => {
    const usage = { input: 2000, output: 1000, cacheRead: 8000, cacheWrite: 0 }
    replay = await startReplayServer({ script: scriptOf({ text: "ok", usage }, { text: "ok", usage }) })
    const records: GatewayRecord[] = []
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { up: { provider: "anthropic", format: "anthropic", baseUrl: replay.url, keyEnv: "K" } },
        routes: [{ match: "*", upstream: "up" }],
      },
      env: { K: "sk-fake-log-key-0000" },
      onRequest: (r) => records.push(r),
    })
    for (const model of ["claude-sonnet-4-5", "house-model"])
      await fetch(`${gateway.urls.anthropic}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
      }).then((r) => r.text())
    // $3 input, $0.30 cache read, $15 output per million: $0.0060 + $0.0024 + $0.0150.
    expect(logLine(records[0]!)).toMatch(/ claude-sonnet-4-5 in 10,000 out 1,000 cached 80% \$0\.0234 \d+ ms 200$/)
    expect(logLine(records[1]!)).toMatch(/ house-model in 10,000 out 1,000 cached 80% \$\? \d+ ms 200$/)
    const priced = JSON.parse(logJson(records[0]!))
    expect(priced.cost.input).toBeCloseTo(0.0084, 12)
    expect(priced.cost.output).toBeCloseTo(0.015, 12)
    expect(JSON.parse(logJson(records[1]!)).cost).toBeNull()
  })
})
