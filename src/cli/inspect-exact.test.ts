import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { createServer as createHttpServer } from "node:http"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { InspectReport } from "../inspect/report-types.js"
import { parseReplayScript } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { runCli } from "./test-helpers/run.js"

const shop = fileURLToPath(new URL("../../test/fixtures/inspect/shop-context.json", import.meta.url))

let server: ReplayServer
let dir: string
beforeAll(async () => {
  server = await startReplayServer({ script: parseReplayScript({ version: 1, turns: [{ text: "unused" }] }) })
  dir = await mkdtemp(join(tmpdir(), "pl-inspect-exact-"))
})
afterAll(async () => {
  await server.close()
  await rm(dir, { recursive: true, force: true })
})
let seen = 0
beforeEach(() => {
  seen = server.requests.length
})
const counted = () => server.requests.slice(seen)

const KEYS = {
  ANTHROPIC_API_KEY: "sk-ant-exact-secret",
  OPENAI_API_KEY: "sk-openai-exact-secret",
  GEMINI_API_KEY: "gemini-exact-secret",
}
const env = (keys: Record<string, string> = KEYS) => ({
  PATH: process.env.PATH,
  SHELL: "/bin/bash",
  HOME: dir,
  NO_COLOR: "1",
  ...keys,
})
const inspect = (args: string[], keys?: Record<string, string>) =>
  runCli(["inspect", "--context", shop, "--no-last-run", ...args], { cwd: dir, env: env(keys) })

const cases = [
  { model: "claude-sonnet-4-5", format: "anthropic", base: () => server.urls.anthropic, path: /count_tokens$/ },
  { model: "gpt-5", format: "openai-responses", base: () => server.urls.openai, path: /\/responses\/input_tokens$/ },
  { model: "gemini-2.5-pro", format: "gemini", base: () => server.urls.gemini, path: /:countTokens$/ },
] as const

describe("promptline inspect --exact", () => {
  for (const c of cases) {
    it(`counts the built request with the ${c.format} counting endpoint, per part, beside our count`, async () => {
      const r = await inspect(["--model", c.model, "--exact", "--base-url", c.base(), "--json"])
      expect(r.stderr).toBe("")
      expect(r.code).toBe(0)
      const report = JSON.parse(r.stdout) as InspectReport
      const exact = report.exact!
      if (exact.status !== "counted") throw new Error(`not counted: ${JSON.stringify(exact)}`)
      const records = counted()
      // The whole request, then without the tools, then without the system prompt.
      expect(records.map((x) => x.path)).toEqual(records.map(() => expect.stringMatching(c.path)))
      expect(exact.requests).toBe(records.length)
      expect(records).toHaveLength(3)
      const [whole, noTools, noSystem] = records.map((x) => x.count!)
      expect(exact.exact).toBe(whole)
      expect(exact.endpoint).toMatch(c.path)
      expect(exact.format).toBe(c.format)
      expect(exact.keySource).toMatch(/_API_KEY$/)
      const part = (id: string) => exact.parts.find((p) => p.id === id)!
      expect(part("tools").exact).toBe(whole! - noTools!)
      expect(part("system").exact).toBe(whole! - noSystem!)
      expect(exact.parts.reduce((n, p) => n + p.exact, 0)).toBe(whole)
      expect(exact.parts.reduce((n, p) => n + p.estimated, 0)).toBe(exact.estimated)
      expect(part("tools").estimated).toBeGreaterThan(0)
      expect(exact.ratio).toBeCloseTo(whole! / exact.estimated, 9)
      // The request counted is the build's: the system prompt and the context message are in it.
      const body = JSON.stringify(records[0]!.body)
      expect(body).toContain(report.sections[0]!.text.slice(0, 40).replace(/"/g, '\\"'))
      expect(body).not.toContain('"stream"')
      expect(JSON.stringify(records[1]!.body)).not.toContain('"read_file"')
      // One sample of the context manager's calibration, from the endpoint.
      expect(report.calibrations).toEqual([
        { model: c.model, ratio: exact.ratio, samples: 1, source: "endpoint", from: exact.endpoint },
      ])
      expect(r.stdout).not.toMatch(/exact-secret/)
    })
  }

  it("shows exact and estimated side by side in the terminal report and the HTML report", async () => {
    const html = join(dir, "exact.html")
    const r = await inspect(["--exact", "--base-url", server.urls.anthropic])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(
      /^Exact count: [\d,]+ tokens by the anthropic counting endpoint, [\d,]+ estimated \(ratio \d\.\d{3}\)$/m,
    )
    expect(r.stdout).toMatch(/^ {2}part +exact +estimated +delta +ratio$/m)
    for (const part of ["system", "tools", "messages", "total"])
      expect(r.stdout).toMatch(new RegExp(`^  ${part} +[\\d,]+ +[\\d,]+ +[-+]?[\\d,]+ +\\d\\.\\d{3}$`, "m"))
    expect(r.stdout).toContain(`${server.urls.anthropic}/v1/messages/count_tokens`)
    expect(r.stdout).toMatch(/^Calibration: exact ÷ counted \d\.\d{3} over 1 count \(the counting endpoint;/m)
    const h = await inspect(["--exact", "--base-url", server.urls.anthropic, "--html", html])
    expect(h.code).toBe(0)
    const page = await readFile(html, "utf8")
    expect(page).toContain('<section id="exact"><h2>Exact count: ')
    expect(page).toMatch(/<td>total<\/td><td class="num">[\d,]+<\/td>/)
    expect(page).toContain("Calibration: exact ÷ counted")
  })

  it("counts the conversation given with --history in the messages part", async () => {
    const file = join(dir, "chat.json")
    const said = "Please rename the checkout module to payments and update every import."
    await writeFile(file, JSON.stringify([{ id: "u1", role: "user", ts: 1, content: [{ type: "text", text: said }] }]))
    const plain = JSON.parse((await inspect(["--exact", "--base-url", server.urls.anthropic, "--json"])).stdout)
    const r = await inspect(["--exact", "--base-url", server.urls.anthropic, "--history", file, "--json"])
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout) as InspectReport
    expect(JSON.stringify(counted().at(-3)!.body)).toContain(said)
    const messages = (x: InspectReport) => (x.exact as { parts: { id: string; exact: number }[] }).parts.at(-1)!
    expect(messages(report).id).toBe("messages")
    expect(messages(report).exact).toBeGreaterThan(messages(plain).exact)
  })

  it("without a key: a diagnostic naming the variable, the estimate, and no request", async () => {
    const r = await inspect(["--exact", "--base-url", server.urls.anthropic, "--json"], {})
    expect(r.code).toBe(0)
    expect(counted()).toHaveLength(0)
    const report = JSON.parse(r.stdout) as InspectReport
    expect(report.exact).toMatchObject({ status: "unavailable", code: "count-no-key" })
    expect(report.exact?.status === "unavailable" && report.exact.estimated).toBeGreaterThan(0)
    expect(report.diagnostics).toContainEqual(
      expect.objectContaining({
        level: "warning",
        code: "count-no-key",
        message: expect.stringContaining("ANTHROPIC_API_KEY"),
      }),
    )
    expect(report.calibrations).toBeUndefined()
    const text = await inspect(["--exact"], {})
    expect(text.stdout).toMatch(/^Exact count: unavailable, [\d,]+ tokens estimated$/m)
    expect(text.stdout).toMatch(/set ANTHROPIC_API_KEY/)
    expect(text.stderr).toBe("")
  })

  it("a wire format without a counting endpoint is said so, for OpenAI Chat and DeepSeek alike", async () => {
    for (const model of ["deepseek-chat", "mistral-large-latest"]) {
      const r = await inspect(["--model", model, "--exact", "--base-url", server.urls.openai, "--json"])
      expect(r.code).toBe(0)
      const report = JSON.parse(r.stdout) as InspectReport
      expect(report.exact).toMatchObject({
        status: "unavailable",
        code: "count-unsupported",
        reason: expect.stringMatching(/^the (deepseek|openai-chat) wire format has no token-counting endpoint/),
      })
    }
    expect(counted()).toHaveLength(0)
  })

  it("a network failure is a diagnostic, never a stack trace", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port
        s.close(() => resolve(p))
      })
    })
    const r = await inspect(["--exact", "--base-url", `http://127.0.0.1:${port}`])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe("")
    expect(r.stdout).toMatch(/the counting endpoint http:\/\/127\.0\.0\.1:\d+\/v1\/messages\/count_tokens failed: /)
    expect(r.stdout).toContain("[count-failed]")
    expect(r.stdout).not.toMatch(/\n\s+at /)
  })

  it("a refusal by the endpoint (a bad key) is a diagnostic with the provider's message", async () => {
    const refusing = createHttpServer((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" })
      res.end(JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }))
    })
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve))
    try {
      const port = (refusing.address() as { port: number }).port
      const r = await inspect(["--exact", "--base-url", `http://127.0.0.1:${port}`, "--json"])
      expect(r.code).toBe(0)
      expect(r.stderr).toBe("")
      const report = JSON.parse(r.stdout) as InspectReport
      expect(report.exact).toMatchObject({ status: "unavailable", code: "count-failed" })
      expect(report.exact?.status === "unavailable" && report.exact.reason).toMatch(/invalid x-api-key/)
    } finally {
      await new Promise((resolve) => refusing.close(resolve))
    }
  })

  it("refuses --base-url without --exact, and --exact or --session with --trace", async () => {
    const alone = await inspect(["--base-url", server.urls.anthropic])
    expect(alone.code).not.toBe(0)
    expect(alone.stderr).toMatch(/--base-url is where --exact counts/)
    for (const flag of [["--exact"], ["--session", "x"]]) {
      const r = await inspect(["--trace", join(dir, "none.jsonl"), ...flag])
      expect(r.code).not.toBe(0)
      expect(r.stderr).toContain(`it takes no ${flag[0]}`)
      expect(r.stderr).not.toMatch(/\n\s+at /)
    }
  })
})
