// The trace report (`inspect --trace --html`) in a real browser: Debian's chromium driven by playwright-core.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeScriptedTrace } from "../cache/test-helpers/scripted-trace.js"
import { bodyOf, readTraceFile } from "../cache/trace-read.js"
import { TokenCounter } from "../history/tokens.js"
import { renderTraceHtml } from "./render-trace-html.js"
import { type BrowserContext, chromium, openPage, type Page } from "./test-helpers/chromium.js"
import { traceReport } from "./trace-report.js"

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url))

let dir: string
let browser: BrowserContext | undefined
let page: Page
let file: string
const problems: string[] = []

describe.skipIf(!chromium)("the trace report in Chromium", () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-trace-html-"))
    const counter = await TokenCounter.create()
    const trace = await writeScriptedTrace(join(dir, "traces"), counter, "openai-chat", 10)
    const lines = await readTraceFile(trace)
    const report = traceReport({ file: trace, lines, request: 7, body: await bodyOf(trace, lines[6]!), counter })
    file = join(dir, "trace.html")
    await writeFile(file, renderTraceHtml(report))
    ;({ browser, page } = await openPage(join(dir, "profile"), (url) => url.startsWith("file://"), problems))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it("opens with no console errors and no network request, showing the request's verdict", async () => {
    await page.goto(pathToFileURL(file).href)
    await expect(page.title()).resolves.toBe("promptline inspect: request 7 of 10, gpt-4o")
    await expect(page.locator("#verdict-text").textContent()).resolves.toMatch(/^miss: cache lifetime exceeded/)
    expect(problems).toEqual([])
  })

  it("heads the window once and never says a conversation is missing under one", async () => {
    await page.goto(pathToFileURL(file).href)
    await expect(page.locator("h2", { hasText: "Context window" }).count()).resolves.toBe(1)
    const text = (await page.locator("#window").textContent()) ?? ""
    expect(text).toContain("The request as sent: its prompt and its conversation")
    expect(text.toLowerCase()).not.toContain("no conversation")
    const conversation = await page.locator('#window-bar .seg[data-part="user"]').count()
    expect(conversation).toBe(1)
  })

  it("draws one timeline bar per request, as tall as its tokens, stacked cached / written / uncached", async () => {
    await page.goto(pathToFileURL(file).href)
    const bars = await page.locator("#timeline-bars .req").all()
    expect(bars).toHaveLength(10)
    const area = (await page.locator("#timeline-bars").boundingBox())!
    const totals = await Promise.all(
      bars.map(async (b) => Number((await b.getAttribute("title"))!.match(/: ([\d,]+) tokens/)![1]!.replace(/,/g, ""))),
    )
    const max = Math.max(...totals)
    for (const [i, bar] of bars.entries()) {
      const box = (await bar.boundingBox())!
      expect(Math.abs(box.height - (totals[i]! / max) * area.height)).toBeLessThanOrEqual(1.5)
      // Each layer is as tall as its share of the request's tokens.
      const title = (await bar.getAttribute("title"))!
      const figure = (what: string) => Number(title.match(new RegExp(`([\\d,]+) ${what}`))![1]!.replace(/,/g, ""))
      for (const [layer, what] of [
        ["read", "cached"],
        ["write", "written"],
        ["uncached", "uncached"],
      ] as const) {
        const height = (await bar.locator(`.${layer}`).boundingBox())?.height ?? 0
        expect(Math.abs(height - (figure(what) / totals[i]!) * box.height), `#${i + 1} ${layer}`).toBeLessThanOrEqual(
          1.5,
        )
      }
    }
    await expect(page.locator("#timeline-bars .req.current").getAttribute("data-n")).resolves.toBe("7")
  })

  it("marks each miss with its cause", async () => {
    await page.goto(pathToFileURL(file).href)
    const misses = page.locator("#timeline-bars .req.miss")
    await expect(
      misses.evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { n: string } }).dataset.n)),
    ).resolves.toEqual(["4", "7"])
    await expect(page.locator('#timeline-bars .req[data-n="4"]').getAttribute("data-cause")).resolves.toMatch(
      /^tools changed: \S+ reordered$/,
    )
    await expect(page.locator("#misses li").allTextContents()).resolves.toEqual([
      expect.stringMatching(/^#4: tools changed/),
      expect.stringMatching(/^#7: cache lifetime exceeded/),
    ])
    // The miss marker is drawn above its bar.
    const mark = await page.locator('#timeline-bars .req[data-n="4"]').evaluate((e) => {
      const style = (
        globalThis as unknown as { getComputedStyle(e: unknown, p: string): { content: string } }
      ).getComputedStyle(e, "::after")
      return style.content
    })
    expect(mark).toBe('"✕"')
    await mkdir(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, "inspect-trace.png"), fullPage: true })
    expect(problems).toEqual([])
  })

  it("draws the whole-window bar with each part as wide as its share", async () => {
    await page.goto(pathToFileURL(file).href)
    const total = (await page.locator("#window-bar").boundingBox())!.width
    let shares = 0
    for (const seg of await page.locator("#window-bar .seg").all()) {
      const share = Number(await seg.getAttribute("data-share"))
      shares += share
      expect(Math.abs(((await seg.boundingBox())?.width ?? 0) - share * total)).toBeLessThanOrEqual(
        Math.max(1, 0.005 * total),
      )
    }
    expect(shares).toBeCloseTo(1, 6)
  })
})
