import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { errorPageText, isMarkup } from "./error-page.js"
import { classifyHttpError } from "./errors.js"

const NGINX = `<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n`

const PROXY = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Attention Required! | Example&nbsp;Edge</title>
<style>body{font:14px sans-serif}</style>
<script>window.__cfg = { token: "abc" }; document.write("<b>injected</b>")</script></head>
<body><!-- ray id 8f2 --><h1>Sorry, you have been blocked</h1><p>You are unable to access api.example.com &amp; its models.</p>
<script src="/cdn-cgi/challenge.js"></script></body></html>`

describe("errorPageText", () => {
  it("gives a page's title, or its first words, without markup, scripts, styles or comments", () => {
    expect(errorPageText(NGINX)).toBe("502 Bad Gateway")
    expect(errorPageText(PROXY)).toBe("Attention Required! | Example Edge")
    const untitled = PROXY.replace(/<title>.*?<\/title>/, "")
    expect(errorPageText(untitled)).toBe(
      "Sorry, you have been blocked You are unable to access api.example.com & its models.",
    )
    expect(errorPageText("<html><body><h1>Sign in to the proxy</h1></body></html>")).toBe("Sign in to the proxy")
    expect(errorPageText(`<p>${"word ".repeat(100)}</p>`, 30)).toHaveLength(30)
  })

  it("never lets markup or a script's text through, whatever the page", () => {
    const secret = "SCRIPT_TEXT_SHOULD_NOT_LEAK"
    const piece = fc.oneof(
      fc.string({ unit: fc.constantFrom("<", ">", "/", "a", " ", "&", ";", "#", "x", "=", '"', "-", "!") }),
      fc.constantFrom(
        "<title>",
        "</title>",
        "<script>",
        "</script>",
        "<style>",
        "<!--",
        "-->",
        "&lt;",
        "&#60;",
        "&#x3e;",
      ),
      fc.constantFrom("<b>", "</b>", "<p class=x>", "<br/>", "<", "&#0;", "&#x1b;", "&#1114112;"),
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), fc.array(piece, { maxLength: 5 }), (before, after) => {
        const page = `${before.join("")}<script>${secret}</script>${after.join("")}`
        const text = errorPageText(page)
        expect(text).not.toMatch(/[<>\u0000-\u001f\u007f-\u009f]/)
        expect(text).not.toContain(secret)
        expect(text.length).toBeLessThanOrEqual(200)
      }),
      { numRuns: 500 },
    )
  })

  it("tells markup from plain text", () => {
    expect([NGINX, PROXY, "  <?xml version='1.0'?><e/>", "<body>x"].every(isMarkup)).toBe(true)
    expect(["upstream connect error", "a < b", "", '{"error":1}'].some(isMarkup)).toBe(false)
  })
})

describe("classifyHttpError on a page instead of the API's error", () => {
  it("keeps the status and the page's words, not the page", () => {
    const error = classifyHttpError({ status: 502, body: PROXY, headers: { "retry-after": "3" } })
    expect([error.kind, error.status, error.message, error.retryAfterMs]).toEqual([
      "server",
      502,
      "HTTP 502: Attention Required! | Example Edge",
      3000,
    ])
    expect(classifyHttpError({ status: 503, body: "upstream connect error" }).message).toBe(
      "HTTP 503: upstream connect error",
    )
  })
})
