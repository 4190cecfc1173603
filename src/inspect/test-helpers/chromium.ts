/**
 * Debian's chromium driven by playwright-core, for the HTML report tests. playwright-core is a test peer
 * (test/peers/package.json; `npm run test:peers`), so this file declares the part of its API the tests use.
 */
import { existsSync } from "node:fs"
import { loadPeer } from "../../../test/peers/load.js"

/** Where .ci/run installs chromium. */
export const CHROMIUM = "/usr/bin/chromium"

/** A box on the page, in CSS pixels. */
export interface Box {
  x: number
  y: number
  width: number
  height: number
}

/** The part of Playwright's Locator the tests use. */
export interface Locator {
  locator(selector: string): Locator
  first(): Locator
  all(): Promise<Locator[]>
  count(): Promise<number>
  boundingBox(): Promise<Box | null>
  textContent(): Promise<string | null>
  allTextContents(): Promise<string[]>
  getAttribute(name: string): Promise<string | null>
  isVisible(): Promise<boolean>
  click(): Promise<void>
  screenshot(options: { path: string }): Promise<unknown>
  evaluate<R>(fn: (element: unknown) => R): Promise<R>
  evaluateAll<R>(fn: (elements: unknown[]) => R): Promise<R>
}

/** The part of Playwright's Page the tests use. */
export interface Page {
  on(event: "console", listener: (message: { type(): string; text(): string }) => void): void
  on(event: "pageerror", listener: (error: Error) => void): void
  on(event: "request", listener: (request: { url(): string }) => void): void
  goto(url: string): Promise<{ status(): number } | null>
  title(): Promise<string>
  locator(selector: string, options?: { hasText?: string }): Locator
  screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown>
}

/** The part of Playwright's BrowserContext the tests use. */
export interface BrowserContext {
  pages(): Page[]
  newPage(): Promise<Page>
  close(): Promise<void>
}

/** Launch options of a persistent context. */
export interface LaunchOptions {
  executablePath: string
  headless: boolean
  args: string[]
  viewport: { width: number; height: number }
}

const playwright = await loadPeer<{
  chromium: { launchPersistentContext(dir: string, options: LaunchOptions): Promise<BrowserContext> }
}>("playwright-core")

/** playwright-core's chromium launcher when both it and the browser are installed, else undefined. */
export const chromium = playwright && existsSync(CHROMIUM) ? playwright.chromium : undefined

/** Chromium's switches for the tests: headless, no sandbox, no GPU, and no networking of its own. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
]

/**
 * Starts Chromium with a new empty profile in `profileDir` and returns its page. Every console error, page error,
 * and request to a URL that `allowed` refuses is pushed onto `problems`, for the test to expect none.
 */
export async function openPage(
  profileDir: string,
  allowed: (url: string) => boolean,
  problems: string[],
): Promise<{ browser: BrowserContext; page: Page }> {
  if (!chromium) throw new Error("Chromium or playwright-core is not installed")
  const browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  })
  const page = browser.pages()[0] ?? (await browser.newPage())
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`)
  })
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`))
  page.on("request", (r) => {
    if (!allowed(r.url())) problems.push(`request: ${r.url()}`)
  })
  return { browser, page }
}
