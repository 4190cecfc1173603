import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"

let ws: TempWorkspace
let server: Server
let base: string

const page = `<!doctype html><html><head><title>Docs</title><style>body{color:red}</style>
<script>console.log("hidden")</script></head><body>
<nav>Home | About</nav>
<h1>Install</h1><p>Run <code>npm install promptline</code> then read the <a href="/guide">guide</a>.</p>
<ul><li>fast</li><li>small</li></ul><img src="x.png" alt="logo">
</body></html>`

beforeAll(async () => {
  ws = await tempWorkspace()
  server = createServer((req, res) => {
    if (req.url === "/docs") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end(page)
    } else if (req.url === "/data.json") {
      res.writeHead(200, { "content-type": "application/json" })
      res.end('{"ok":true}')
    } else if (req.url === "/long") {
      res.writeHead(200, { "content-type": "text/plain" })
      res.end("y".repeat(10_000))
    } else if (req.url === "/old") {
      res.writeHead(301, { location: "/docs" })
      res.end()
    } else if (req.url === "/logo.png") {
      res.writeHead(200, { "content-type": "image/png" })
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]))
    } else if (req.url === "/slow") {
      setTimeout(() => res.end("late"), 5000).unref()
    } else {
      res.writeHead(404, { "content-type": "text/plain" })
      res.end("not found")
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await ws.dispose()
})

describe("web_fetch against a local HTTP server", () => {
  it("returns an HTML page as readable text without scripts, styles, navigation or images", async () => {
    const out = await ws.run("web_fetch", { url: `${base}/docs`, prompt: "how to install" })
    expect(out.isError).toBe(false)
    const text = textOf(out)
    expect(text).toContain(`Fetched ${base}/docs (text/html):\nLooking for: how to install`)
    expect(text).toContain("INSTALL")
    expect(text).toContain("npm install promptline")
    expect(text).toContain(`guide [${base}/guide]`)
    expect(text).toContain("* fast")
    expect(text).not.toContain("console.log")
    expect(text).not.toContain("color:red")
    expect(text).not.toContain("Home | About")
  })

  it("returns JSON as is and follows redirects", async () => {
    expect(textOf(await ws.run("web_fetch", { url: `${base}/data.json` }))).toContain('{"ok":true}')
    expect(textOf(await ws.run("web_fetch", { url: `${base}/old` }))).toContain(`(redirected to ${base}/docs)`)
  })

  it("caps long pages with a notice", async () => {
    const out = await ws.run("web_fetch", { url: `${base}/long` }, { limits: { fetchMaxChars: 1000 } })
    expect(textOf(out)).toContain("[… 9000 more characters not shown (limit 1000).]")
    expect(out.details).toMatchObject({ cut: true })
  })

  it("reports HTTP errors, binary content, bad URLs, other protocols and timeouts", async () => {
    expect(await ws.run("web_fetch", { url: `${base}/missing` })).toMatchObject({
      isError: true,
      summary: `fetch ${new URL(base).host}: HTTP 404`,
    })
    expect(textOf(await ws.run("web_fetch", { url: `${base}/logo.png` }))).toContain("not a text page")
    expect(textOf(await ws.run("web_fetch", { url: "not a url" }))).toContain("not a valid URL")
    expect(textOf(await ws.run("web_fetch", { url: "file:///etc/passwd" }))).toContain("Only http and https")
    const slow = await ws.run("web_fetch", { url: `${base}/slow` }, { limits: { fetchTimeoutMs: 200 } })
    expect(textOf(slow)).toContain("no answer within 200 ms")
  })
})

describe("web_search", () => {
  it("lists the hits of the host's search provider, passing the domain filters", async () => {
    let seen: unknown
    const out = await ws.run(
      "web_search",
      { query: "promptline", allowed_domains: '["example.com"]' },
      {
        search: {
          async search(query) {
            seen = query
            return [
              { title: "Promptline", url: "https://example.com/p", snippet: "The context engine." },
              { title: "Other", url: "https://example.com/o" },
            ]
          },
        },
      },
    )
    expect(seen).toEqual({ query: "promptline", allowedDomains: ["example.com"], blockedDomains: undefined })
    expect(textOf(out)).toBe(
      'Results for "promptline":\n\n1. Promptline\n   https://example.com/p\n   The context engine.\n\n2. Other\n   https://example.com/o',
    )
    expect(out.summary).toBe('searched "promptline" (2 results)')
  })

  it("is a clear error result when no provider is configured, or when it fails", async () => {
    const none = await ws.run("web_search", { query: "x" })
    expect(none.isError).toBe(true)
    expect(textOf(none)).toContain("Web search is not configured")
    const failing = await ws.run(
      "web_search",
      { query: "x" },
      {
        search: {
          search: async () => {
            throw new Error("quota exceeded")
          },
        },
      },
    )
    expect(textOf(failing)).toBe("The web search failed: quota exceeded")
  })
})
