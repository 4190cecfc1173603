// The HTML report in a real browser: Debian's chromium driven by playwright-core (.ci/run installs it).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Message } from "../history/message.js"
import { TokenCounter } from "../history/tokens.js"
import { PromptBuilder } from "../prompt/builder.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { diffBuilds } from "./build-diff.js"
import { renderHtml } from "./render-html.js"
import { inspectReport } from "./report.js"
import { type BrowserContext, chromium, openPage, type Page } from "./test-helpers/chromium.js"
import { withModel } from "./with-model.js"

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url))

let dir: string
let browser: BrowserContext | undefined
let page: Page
let file: string
let compareFile: string
/** Console errors, page errors and any request that is not the page itself. */
const problems: string[] = []

describe.skipIf(!chromium)("the HTML report in Chromium", () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-html-"))
    const counter = await TokenCounter.create()
    const builder = new PromptBuilder()
    const context = basicContext({ placement: "system" })
    const history: Message[] = [
      { id: "m1", role: "user", ts: 1, content: [{ type: "text", text: "Why does the build fail? ".repeat(400) }] },
      {
        id: "m2",
        role: "assistant",
        ts: 2,
        content: [
          { type: "thinking", text: "Read the compiler output. ".repeat(300) },
          { type: "tool_use", id: "t1", name: "execute_command", input: { command: "npm run build" } },
        ],
      },
      {
        id: "m3",
        role: "user",
        ts: 3,
        content: [{ type: "tool_result", toolUseId: "t1", content: "error TS2322\n".repeat(3000) }],
      },
    ]
    const a = inspectReport({ built: builder.build(context), context, counter, history })
    const other = withModel(context, "gpt-5")
    const b = inspectReport({ built: builder.build(other), context: other, counter })
    file = join(dir, "report.html")
    compareFile = join(dir, "compare.html")
    await writeFile(file, renderHtml(a))
    await writeFile(compareFile, renderHtml(a, { report: b, diff: diffBuilds(a, b) }))

    ;({ browser, page } = await openPage(join(dir, "profile"), (url) => url.startsWith("file://"), problems))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it("opens with no console errors and no network request", async () => {
    await page.goto(pathToFileURL(file).href)
    await expect(page.title()).resolves.toBe("promptline inspect: claude-sonnet-4-5")
    expect(problems).toEqual([])
  })

  it("draws each bar segment as wide as its token share", async () => {
    await page.goto(pathToFileURL(file).href)
    const total = (await page.locator("#bar").boundingBox())!.width
    const segments = await page.locator("#bar .seg").all()
    expect(segments.length).toBeGreaterThan(10)
    let shares = 0
    for (const seg of segments) {
      const share = Number(await seg.getAttribute("data-share"))
      const width = (await seg.boundingBox())?.width ?? 0
      shares += share
      const id = await seg.getAttribute("data-id")
      expect(Math.abs(width - share * total), `${id}: ${width}px for a share of ${share}`).toBeLessThanOrEqual(
        Math.max(1, 0.005 * total),
      )
    }
    expect(shares).toBeCloseTo(1, 6)
  })

  it("draws the whole-window bar with each part as wide as its share of the window", async () => {
    await page.goto(pathToFileURL(file).href)
    const total = (await page.locator("#window-bar").boundingBox())!.width
    const parts = await page.locator("#window-bar .seg").all()
    const ids = await Promise.all(parts.map((p) => p.getAttribute("data-part")))
    expect(ids).toEqual(
      expect.arrayContaining(["system", "tools", "user", "tool-results", "reasoning", "reserve", "free"]),
    )
    let shares = 0
    for (const seg of parts) {
      const share = Number(await seg.getAttribute("data-share"))
      const width = (await seg.boundingBox())?.width ?? 0
      shares += share
      const id = await seg.getAttribute("data-part")
      expect(Math.abs(width - share * total), `${id}: ${width}px for a share of ${share}`).toBeLessThanOrEqual(
        Math.max(1, 0.005 * total),
      )
    }
    expect(shares).toBeCloseTo(1, 6)
    const free = await page.locator('#window-bar .seg[data-part="free"]').boundingBox()
    expect(free!.width).toBeGreaterThan(total / 2)
    await expect(page.locator('#window .legend li[data-part="reasoning"]').textContent()).resolves.toMatch(
      /^reasoning [\d,]+ \(\d+\.\d%\)$/,
    )
  })

  it("has tables for skills and MCP servers with their own columns", async () => {
    await page.goto(pathToFileURL(file).href)
    const heads = (table: string) => page.locator(`table.${table} thead th`).allTextContents()
    await expect(heads("skills")).resolves.toEqual(["name", "path", "status", "why", "tokens"])
    await expect(heads("servers")).resolves.toEqual(["name", "source", "status", "tools", "tokens"])
    await expect(page.locator('table.servers tr[data-server="tracker"] td').allTextContents()).resolves.toEqual([
      "tracker",
      "",
      "loaded: in the context file",
      "1",
      expect.stringMatching(/^\d+$/),
    ])
    await expect(page.locator('#tools .mcp-group[data-server="tracker"] h3 .subtotal').textContent()).resolves.toMatch(
      /^1 tool · \d+ tokens$/,
    )
    expect(problems).toEqual([])
  })

  it("expands a section on click, and a bar segment opens its section", async () => {
    await page.goto(pathToFileURL(file).href)
    const rules = page.locator('details.section[data-section="rules"]')
    await expect(rules.getAttribute("open")).resolves.toBeNull()
    await rules.locator("summary").click()
    await expect(rules.getAttribute("open")).resolves.toBe("")
    await expect(rules.locator("pre").isVisible()).resolves.toBe(true)
    const info = page.locator('details.section[data-section="system-info"]')
    await page.locator('#bar .seg[data-id="system-info"]').click()
    await expect(info.getAttribute("open")).resolves.toBe("")
    await page.locator('button[data-action="expand"][data-scope="sections"]').click()
    await expect(page.locator("details.section:not([open])").count()).resolves.toBe(0)
    await page.locator('button[data-action="collapse"][data-scope="sections"]').click()
    await mkdir(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, "inspect-report.png"), fullPage: true })
    expect(problems).toEqual([])
  })

  it("shows two builds side by side with their differences marked", async () => {
    await page.goto(pathToFileURL(compareFile).href)
    const changed = page.locator('#compare details[data-status="changed"]').first()
    await expect(changed.getAttribute("open")).resolves.toBe("")
    await expect(changed.locator("ins.add, del.rm").count()).resolves.toBeGreaterThan(0)
    // Runs in the page, where the DOM exists (this project compiles without the DOM types).
    const styleOf = globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
    const added = await page
      .locator("#compare ins.add")
      .first()
      .evaluate((e) => (globalThis as unknown as typeof styleOf).getComputedStyle(e).backgroundColor)
    expect(added).toMatch(/^rgb\(/)
    await page.locator("#compare").screenshot({ path: join(ARTIFACTS, "inspect-compare.png") })
    expect(problems).toEqual([])
  })
})
