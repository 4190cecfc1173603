import { z } from "zod"
import { lazyModule } from "../../lazy-module.js"
import { taskProgressArg } from "./args.js"
import { capText, failure, oneLine, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  url: z.string({ error: "expected a URL as a string" }).trim().min(1, "must not be empty"),
  prompt: z.string().optional(),
  task_progress: taskProgressArg,
})

/** Most bytes of a response body read before converting; the rest is not downloaded. */
const MAX_BODY_BYTES = 5 * 1024 * 1024

const TEXT_TYPES =
  /^(text\/|application\/(json|ld\+json|xml|javascript|x-javascript|ecmascript|x-yaml|yaml|toml)|[^;]*\+(json|xml))/

/** Reads a body up to `max` bytes; `cut` says whether there was more. */
async function readBody(response: Response, max: number): Promise<{ bytes: Buffer; cut: boolean }> {
  if (!response.body) return { bytes: Buffer.alloc(0), cut: false }
  const chunks: Buffer[] = []
  let size = 0
  const reader = response.body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return { bytes: Buffer.concat(chunks), cut: false }
      chunks.push(Buffer.from(value))
      size += value.length
      if (size >= max) return { bytes: Buffer.concat(chunks).subarray(0, max), cut: true }
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

function absolute(href: string, baseUrl: string | undefined): string {
  try {
    return baseUrl ? new URL(href, baseUrl).href : href
  } catch {
    return href
  }
}

/** html-to-text, required on the first page converted. */
const htmlToTextModule = lazyModule<typeof import("html-to-text")>("html-to-text")

/** Converts an HTML page to readable plain text (links kept, images and scripts dropped). */
export function htmlToText(html: string, baseUrl?: string): string {
  return htmlToTextModule()
    .convert(html, {
      wordwrap: false,
      selectors: [
        { selector: "img", format: "skip" },
        { selector: "script", format: "skip" },
        { selector: "style", format: "skip" },
        { selector: "nav", format: "skip" },
        {
          selector: "a",
          options: {
            ignoreHref: false,
            hideLinkHrefIfSameAsText: true,
            pathRewrite: (href: string) => absolute(href, baseUrl),
          },
        },
      ],
    })
    .replace(/\n{3,}/g, "\n\n")
    .trim()
}

/** web_fetch: downloads a web page and returns it as text (HTML converted), capped. */
export const webFetchExecutor = defineExecutor({
  id: "web_fetch",
  schema,
  async run(input, env) {
    let url: URL
    try {
      url = new URL(input.url)
    } catch {
      return failure(`"${input.url}" is not a valid URL.`, `fetch ${oneLine(input.url)}: bad URL`)
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return failure(`Only http and https URLs can be fetched, not ${url.protocol}`, `fetch ${url.href}: refused`)
    }
    const doFetch = env.fetch ?? fetch
    const signal = AbortSignal.any([env.signal, AbortSignal.timeout(env.limits.fetchTimeoutMs)])
    let response: Response
    try {
      response = await doFetch(url, {
        signal,
        redirect: "follow",
        headers: { accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5" },
      })
    } catch (error) {
      const reason =
        signal.aborted && !env.signal.aborted
          ? `no answer within ${env.limits.fetchTimeoutMs} ms`
          : (error as Error).message
      return failure(`Fetching ${url.href} failed: ${reason}`, `fetch ${url.host}: failed`)
    }
    const type = (response.headers.get("content-type") ?? "text/plain").toLowerCase()
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined)
      return failure(
        `Fetching ${url.href} failed: HTTP ${response.status} ${response.statusText}`.trim(),
        `fetch ${url.host}: HTTP ${response.status}`,
      )
    }
    if (!TEXT_TYPES.test(type) && !type.includes("html")) {
      await response.body?.cancel().catch(() => undefined)
      return failure(`${url.href} is not a text page (content type ${type}).`, `fetch ${url.host}: not text`)
    }
    const body = await readBody(response, MAX_BODY_BYTES)
    const raw = body.bytes.toString("utf8")
    const text = type.includes("html") ? htmlToText(raw, response.url || url.href) : raw.trim()
    const capped = capText(text, env.limits.fetchMaxChars)
    const final = response.url && response.url !== url.href ? ` (redirected to ${response.url})` : ""
    const head = [`Fetched ${url.href}${final} (${type.split(";")[0]}):`]
    if (input.prompt?.trim()) head.push(`Looking for: ${input.prompt.trim()}`)
    const note = body.cut && !capped.cut ? "\n\n[The page was longer; only its first 5 MB were read.]" : ""
    return success(
      `${head.join("\n")}\n\n${capped.text}${note}`,
      `fetched ${url.host}${url.pathname} (${text.length} chars)`,
      {
        details: { status: response.status, contentType: type, chars: text.length, cut: capped.cut || body.cut },
      },
    )
  },
})
