// The gateway's status page in a real browser: Debian's chromium driven by playwright-core, served by a gateway
// that sent real requests to the replay server.
import { mkdir, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type BrowserContext, chromium, openPage, type Page } from "../inspect/test-helpers/chromium.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { scriptOf } from "../replay/test-helpers/fixtures.js"
import { type Gateway, startGateway } from "./server.js"

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url))
const TOKEN = "status-page-token-0123456789"
const usage = { input: 2000, output: 1000, cacheRead: 8000, cacheWrite: 0 }

let dir: string
let browser: BrowserContext | undefined
let page: Page
let replay: ReplayServer | undefined
let gateway: Gateway | undefined
const problems: string[] = []

async function ask(model: string): Promise<void> {
  await fetch(`${gateway!.urls.anthropic}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": TOKEN },
    body: JSON.stringify({ model, max_tokens: 10, messages: [{ role: "user", content: "what is in vault 7?" }] }),
  }).then((r) => r.text())
}

describe.skipIf(!chromium)("the gateway's status page in Chromium", () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-status-page-"))
    replay = await startReplayServer({
      script: scriptOf(
        { text: "ok", usage },
        { text: "ok", usage, faults: [{ kind: "overloaded" }] },
        { text: "ok", usage },
        { text: "ok", usage },
      ),
    })
    gateway = await startGateway({
      config: {
        port: 0,
        tokenEnv: "GATEWAY_TOKEN",
        upstreams: {
          main: { provider: "anthropic", format: "anthropic", baseUrl: replay.url, keyEnv: "K" },
          spare: { provider: "anthropic", format: "anthropic", baseUrl: replay.url, keyEnv: "K" },
        },
        routes: [{ match: "*", upstream: "main" }],
      },
      env: { K: "sk-fake-status-page-key", GATEWAY_TOKEN: TOKEN },
    })
    for (const model of ["claude-sonnet-4-5", "claude-sonnet-4-5", "claude-sonnet-4-5", "house-model"]) await ask(model)
    ;({ browser, page } = await openPage(
      join(dir, "profile"),
      (url) => url.startsWith(`${gateway!.url}/promptline/status`),
      problems,
    ))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await gateway?.close(0)
    await replay?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it("is refused without the gateway's token, and shown with it", async () => {
    const refused = await page.goto(`${gateway!.url}/promptline/status`)
    expect(refused?.status()).toBe(401)
    await expect(page.locator("#refusal").textContent()).resolves.toContain("this gateway needs its token")
    const shown = await page.goto(`${gateway!.url}/promptline/status?key=${TOKEN}`)
    expect(shown?.status()).toBe(200)
    await expect(page.title()).resolves.toBe("promptline gateway status")
    // The refusal's own 401 is the one error the console shows; no icon is asked for, so no request went through.
    expect(problems).toEqual([expect.stringMatching(/^console: Failed to load resource: .*401/)])
    problems.length = 0
    expect(gateway!.usage().requests).toBe(4)
  })

  it("shows the totals so far: requests, errors, cached share, cost with the unpriced model marked", async () => {
    await page.goto(`${gateway!.url}/promptline/status?key=${TOKEN}`)
    const total = (name: string) => page.locator(`#totals dd[data-total="${name}"]`).textContent()
    await expect(total("Requests")).resolves.toBe("4")
    await expect(total("Errors")).resolves.toBe("1")
    await expect(total("Cached share")).resolves.toBe("80.0% of prompt tokens")
    await expect(total("Cost so far")).resolves.toBe(
      "$0.0468 ($0.0168 input + $0.0300 output) + $? for 1 request of house-model (no price)",
    )
    // It reloads itself without a script.
    await expect(page.locator('meta[http-equiv="refresh"]').getAttribute("content")).resolves.toBe("5")
    await expect(page.locator("script").count()).resolves.toBe(0)
    expect(problems).toEqual([])
  })

  it("lists each upstream with its health, and the recent requests newest first without their content", async () => {
    await page.goto(`${gateway!.url}/promptline/status?key=${TOKEN}`)
    const main = page.locator('#upstreams tr[data-upstream="main"] td')
    await expect(main.allTextContents()).resolves.toEqual([
      "main",
      "anthropic (anthropic)",
      "4",
      "1",
      "200",
      "server",
      expect.stringMatching(/^\d\d:\d\d:\d\d$/),
      "-",
    ])
    await expect(page.locator('#upstreams tr[data-upstream="spare"] td').allTextContents()).resolves.toEqual([
      "spare",
      "anthropic (anthropic)",
      "0",
      "0",
      "-",
      "-",
      "-",
      "-",
    ])
    const rows = await page.locator("#recent tbody tr").all()
    expect(await Promise.all(rows.map((r) => r.getAttribute("data-seq")))).toEqual(["4", "3", "2", "1"])
    await expect(page.locator('#recent tr[data-seq="4"] td.cost').textContent()).resolves.toBe("$?")
    await expect(page.locator('#recent tr[data-seq="3"] td.cost').textContent()).resolves.toBe("$0.0234")
    await expect(page.locator('#recent tr[data-seq="2"]').getAttribute("class")).resolves.toBe("failed")
    const text = (await page.locator("body").textContent()) ?? ""
    expect(text).not.toContain("vault 7")
    expect(text).not.toContain("sk-fake-status-page-key")
    expect(text).not.toContain(TOKEN)
    await mkdir(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, "gateway-status.png"), fullPage: true })
    expect(problems).toEqual([])
  })

  it("shows a request that came after the last load when it loads again", async () => {
    await ask("claude-sonnet-4-5")
    await page.goto(`${gateway!.url}/promptline/status?key=${TOKEN}`)
    await expect(page.locator("#recent tbody tr").first().getAttribute("data-seq")).resolves.toBe("5")
    await expect(page.locator('#totals dd[data-total="Requests"]').textContent()).resolves.toBe("5")
  })
})
