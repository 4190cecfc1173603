import { afterEach, describe, expect, it } from "vitest"
import { logField, logLine } from "./log.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"

let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close(0)
  gateway = undefined
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
  return records.map(logLine)
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
})
