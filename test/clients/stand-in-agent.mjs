// A stand-in for an agent CLI under `promptline launch`, for tests: it reads the settings the way the agent it
// stands in for reads them (environment variables, Codex's `-c` overrides, opencode's config content), sends a request
// without the token (the gateway must refuse it) and one real SDK request with it, and writes what it saw as JSON to
// the file named by STAND_IN_REPORT. It lives beside the SDK clients (test/clients/node_modules), which it imports.
//
//   node stand-in-agent.mjs <as> [--exit N] [--wait] [agent arguments...]
//
// <as>: claude, codex, gemini, qwen, opencode (as the real CLI reads its settings), or anthropic, openai-chat,
// openai-responses, gemini-sdk (an SDK reading its own standard variables). --exit N exits with N; --wait writes the
// report, then waits (at most a minute) for a signal: on SIGHUP it sends one more request and exits with 7; SIGTERM ends it (no handler).
import { readFileSync, writeFileSync } from "node:fs"
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import OpenAI from "openai"

const [as, ...rest] = process.argv.slice(2)
const env = process.env
const exitAt = rest.indexOf("--exit")
const exitCode = exitAt >= 0 ? Number(rest[exitAt + 1]) : 0
const wait = rest.includes("--wait")

/** Codex's `-c key=value` overrides, the values TOML strings (JSON-quoted here). */
function codexOverrides(argv) {
  const out = {}
  for (let i = 0; i < argv.length; i++)
    if (argv[i] === "-c") {
      const [key, ...value] = argv[i + 1].split("=")
      out[key] = JSON.parse(value.join("="))
    }
  return out
}

/** Base URL, key and how to ask, per stand-in. */
function client() {
  const anthropic = (baseURL, auth) => ({
    baseURL,
    path: "/v1/messages",
    ask: async () => {
      const sdk = new Anthropic({ baseURL, maxRetries: 0, ...auth })
      const answer = await sdk.messages.create({
        model: "claude-stand-in",
        max_tokens: 100,
        messages: [{ role: "user", content: "say hi" }],
      })
      return answer.content.map((b) => b.text ?? "").join("")
    },
  })
  const chat = (baseURL, apiKey) => ({
    baseURL,
    path: "/chat/completions",
    ask: async () => {
      const sdk = new OpenAI({ baseURL, apiKey, maxRetries: 0 })
      const answer = await sdk.chat.completions.create({
        model: "gpt-stand-in",
        messages: [{ role: "user", content: "say hi" }],
      })
      return answer.choices[0].message.content
    },
  })
  const responses = (baseURL, apiKey) => ({
    baseURL,
    path: "/responses",
    ask: async () => {
      const sdk = new OpenAI({ baseURL, apiKey, maxRetries: 0 })
      const answer = await sdk.responses.create({ model: "gpt-stand-in", input: "say hi" })
      return answer.output_text
    },
  })
  const gemini = (baseUrl, apiKey) => ({
    baseURL: baseUrl,
    path: "/v1beta/models/gemini-stand-in:generateContent",
    ask: async () => {
      const sdk = new GoogleGenAI({ ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { httpOptions: { baseUrl } } : {}) })
      const answer = await sdk.models.generateContent({ model: "gemini-stand-in", contents: "say hi" })
      return answer.text
    },
  })
  switch (as) {
    case "claude":
      // Claude Code: the base URL and a Bearer token from the environment, no x-api-key.
      return anthropic(env.ANTHROPIC_BASE_URL, { authToken: env.ANTHROPIC_AUTH_TOKEN, apiKey: null })
    case "codex": {
      const c = codexOverrides(rest)
      const provider = c.model_provider
      if (c[`model_providers.${provider}.wire_api`] !== "responses") throw new Error("codex: wire_api is not responses")
      return responses(c[`model_providers.${provider}.base_url`], env[c[`model_providers.${provider}.env_key`]])
    }
    case "gemini": {
      // Gemini CLI 0.61 in -p mode: the auth type the settings choose (the user's over the system defaults), else
      // one from the variables, where a base URL means its "gateway" type, which that mode refuses.
      const settings = (file) => {
        try {
          return JSON.parse(readFileSync(file, "utf8")).security?.auth?.selectedType
        } catch {
          return undefined
        }
      }
      const chosen =
        settings(`${env.HOME}/.gemini/settings.json`) ??
        (env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH ? settings(env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH) : undefined) ??
        (env.GOOGLE_GEMINI_BASE_URL ? "gateway" : env.GEMINI_API_KEY ? "gemini-api-key" : undefined)
      if (chosen !== "gemini-api-key") {
        process.stderr.write("Invalid auth method selected.\n")
        process.exit(41)
      }
      return gemini(env.GOOGLE_GEMINI_BASE_URL, env.GEMINI_API_KEY)
    }
    case "qwen":
      if (rest[0] !== "--auth-type" || rest[1] !== "openai") throw new Error("qwen: not --auth-type openai")
      return chat(env.OPENAI_BASE_URL, env.OPENAI_API_KEY)
    case "opencode": {
      const options = JSON.parse(env.OPENCODE_CONFIG_CONTENT).provider.anthropic.options
      // opencode's Anthropic provider takes a base URL ending in /v1.
      return anthropic(options.baseURL.replace(/\/v1$/, ""), { apiKey: options.apiKey })
    }
    case "anthropic":
      return anthropic(env.ANTHROPIC_BASE_URL, {})
    case "openai-chat":
      return chat(undefined, undefined)
    case "openai-responses":
      return responses(undefined, undefined)
    case "gemini-sdk":
      return gemini(undefined, undefined)
    default:
      throw new Error(`stand-in for what? (${as})`)
  }
}

const found = client()
const base = found.baseURL ?? env.OPENAI_BASE_URL ?? env.ANTHROPIC_BASE_URL ?? env.GOOGLE_GEMINI_BASE_URL
const report = {
  as,
  args: rest,
  baseURL: base,
  // Whether the user's provider key (STAND_IN_SECRET names its value) reached the agent under any name.
  sawUserKey: Object.entries(env).some(([name, value]) => name !== "STAND_IN_SECRET" && value === env.STAND_IN_SECRET),
}
// Without the token: the gateway must refuse it before anything goes upstream.
const refused = await fetch(`${base}${found.path}`, {
  method: "POST",
  headers: { "content-type": "application/json", "x-api-key": "not-the-token", authorization: "Bearer not-the-token" },
  body: JSON.stringify({ model: "claude-stand-in", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
})
report.withoutToken = refused.status
report.text = await found.ask()
writeFileSync(env.STAND_IN_REPORT, JSON.stringify(report))
if (wait) {
  process.on("SIGHUP", async () => {
    // The gateway still serves after the signal: launch passed it on and did not stop.
    report.afterSignal = await found.ask()
    writeFileSync(env.STAND_IN_REPORT, JSON.stringify(report))
    process.exit(7)
  })
  report.ready = true
  writeFileSync(env.STAND_IN_REPORT, JSON.stringify(report))
  // Never outlives a test that went wrong by more than a minute.
  setTimeout(() => process.exit(99), 60_000)
} else process.exit(exitCode)
