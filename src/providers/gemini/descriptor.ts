/** The Gemini wire format as data: everything the per-format tables derive from. */
import type { PathMatch, WireFormatDescriptor } from "../descriptor.js"

const MINUTE = 60_000

const GENERATE = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):(streamGenerateContent|generateContent)$/
const COUNT = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):countTokens$/

/** A path's model segment decoded, or why it cannot be (a lone `%`, `%ZZ`, escapes that are not UTF-8). */
function modelOf(segment: string): { model: string } | { invalid: string } {
  try {
    return { model: decodeURIComponent(segment) }
  } catch {
    const shown = segment.length > 100 ? `${segment.slice(0, 99)}…` : segment
    return { invalid: `the model name in the path (${shown}) is not valid percent-encoding` }
  }
}

/** A generation path: the model, and whether (and how) the answer streams. */
function generation(path: string, query: URLSearchParams): PathMatch | undefined {
  const match = GENERATE.exec(path)
  if (!match) return undefined
  const stream = match[3] === "streamGenerateContent"
  return { ...modelOf(match[2]!), stream, sse: stream && query.get("alt") === "sse" }
}

/** A counting path: the model. */
function counting(path: string): PathMatch | undefined {
  const match = COUNT.exec(path)
  return match ? modelOf(match[2]!) : undefined
}

/** The Gemini API (`POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent`). */
export const geminiDescriptor = {
  format: "gemini",
  speaks: "gemini",
  defaultFor: { providers: ["google", "gemini"], families: ["gemini"] },
  nativeTools: "gemini",
  overhead: { message: 3, request: 2, tool: 10, toolsPreamble: 0, toolBlock: 6, image: 258 },
  cache: {
    order: ["system", "tools", "messages"],
    mode: "automatic",
    unit: 1,
    lookback: 0,
    defaultLifetimeMs: 5 * MINUTE,
    defaultMinimum: 1024,
    describe: "implicit caching of system instruction → tools → contents",
  },
  endpoint: {
    path: "/v1beta/models/{model}:streamGenerateContent?alt=sse",
    unaryPath: "/v1beta/models/{model}:generateContent",
    auth: "x-goog-api-key",
  },
  counting: {
    request: (url, body, model) => ({
      url: url.replace(/:(stream)?[gG]enerateContent(\?.*)?$/, ":countTokens"),
      body: { generateContentRequest: { model: `models/${model.replace(/^models\//, "")}`, ...body } },
    }),
    tokens: (answer) => answer?.totalTokens,
    answer: (tokens) => ({ totalTokens: tokens }),
  },
  api: {
    generation,
    counting,
    marks: { pathPrefix: /^\/v1(beta|alpha)\// },
    modelList: {
      paths: (path) => /^\/(v1beta|v1alpha)\/models$/.test(path),
      shape: (ids) => ({
        models: ids.map((id) => ({
          name: `models/${id}`,
          displayName: id,
          supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
        })),
      }),
    },
  },
  detect: (v) => {
    for (const field of ["candidates", "usageMetadata", "promptFeedback"]) if (field in v) return `a "${field}" field`
    return undefined
  },
  history: "contents",
} as const satisfies WireFormatDescriptor<"gemini", "gemini">
