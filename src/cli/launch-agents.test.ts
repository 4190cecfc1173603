import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { WIRE_FORMAT_MODULES } from "../providers/formats.js"
import {
  agentEnvironment,
  agentFormats,
  CLIENT_FORMATS,
  fillSetup,
  LAUNCH_AGENTS,
  LAUNCH_TOKEN_ENV,
  launchAgent,
  SDK_SETUPS,
} from "./launch-agents.js"

const GATEWAY = "http://127.0.0.1:43210"
const TOKEN = "tok_abcdefghijklmnop"

/** Every set-up of the table: each known agent in each of its APIs, and each SDK's. */
const setups = [
  ...LAUNCH_AGENTS.flatMap((agent) =>
    agentFormats(agent).map((format) => [agent.command, format, agent.formats[format]!] as const),
  ),
  ...CLIENT_FORMATS.map((format) => ["(sdk)", format, SDK_SETUPS[format]] as const),
]

describe("the launch table", () => {
  it("names the client APIs the gateway serves, each once", () => {
    const spoken = new Set(Object.values(WIRE_FORMAT_MODULES).map((m) => m.speaks))
    expect(new Set(CLIENT_FORMATS)).toEqual(spoken)
    expect(CLIENT_FORMATS).toHaveLength(spoken.size)
  })

  it("knows each agent by one command", () => {
    const commands = LAUNCH_AGENTS.map((a) => a.command)
    expect(new Set(commands).size).toBe(commands.length)
    expect(commands).toEqual(["claude", "codex", "gemini", "qwen", "opencode"])
    expect(launchAgent("claude")?.name).toBe("Claude Code")
    expect(launchAgent("aider")).toBeUndefined()
  })

  it.each(setups)("%s in %s gets the gateway's base URL and the token, and no placeholder", (_, __, setup) => {
    const { env, args } = fillSetup(setup, GATEWAY, TOKEN)
    const text = JSON.stringify({ env, args })
    expect(text).toContain(GATEWAY)
    expect(text).not.toMatch(/\{gateway\}|\{token\}/)
    // The token is the value of a variable, directly or named by the arguments (Codex's env_key).
    const holders = Object.entries(env).filter(([, value]) => value.includes(TOKEN))
    expect(holders.length).toBeGreaterThan(0)
    for (const [name, value] of holders)
      if (value === TOKEN && !/_API_KEY$|_AUTH_TOKEN$/.test(name)) expect(args.join(" ")).toContain(name)
  })

  it("points Codex at a provider of its own through -c overrides, its key in the launch's token variable", () => {
    const { env, args } = fillSetup(launchAgent("codex")!.formats["openai-responses"]!, GATEWAY, TOKEN)
    expect(args).toEqual([
      "-c",
      'model_provider="promptline"',
      "-c",
      'model_providers.promptline.name="promptline"',
      "-c",
      `model_providers.promptline.base_url="${GATEWAY}/v1"`,
      "-c",
      `model_providers.promptline.env_key="${LAUNCH_TOKEN_ENV}"`,
      "-c",
      'model_providers.promptline.wire_api="responses"',
    ])
    expect(env).toEqual({ [LAUNCH_TOKEN_ENV]: TOKEN })
  })

  it("gives opencode its provider's options as config content", () => {
    const { env } = fillSetup(launchAgent("opencode")!.formats.gemini!, GATEWAY, TOKEN)
    expect(JSON.parse(env.OPENCODE_CONFIG_CONTENT!)).toEqual({
      provider: { google: { options: { baseURL: `${GATEWAY}/v1beta`, apiKey: TOKEN } } },
    })
  })
})

describe("the agent's environment", () => {
  it("is the user's less the hidden variables, plus the set-up's", () => {
    const name = fc.constantFrom<string>(
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "PATH",
      "HOME",
      "TERM",
      "X",
      LAUNCH_TOKEN_ENV,
    )
    fc.assert(
      fc.property(
        fc.dictionary(name, fc.option(fc.string(), { nil: undefined })),
        fc.uniqueArray(name),
        fc.dictionary(name, fc.string()),
        (env, hidden, setup) => {
          const out = agentEnvironment(env, new Set(hidden), setup)
          for (const [key, value] of Object.entries(out)) expect(value).toBe(key in setup ? setup[key] : env[key])
          for (const key of hidden) if (!(key in setup)) expect(out).not.toHaveProperty(key)
          for (const [key, value] of Object.entries(env))
            if (value !== undefined && !hidden.includes(key)) expect(out).toHaveProperty(key)
        },
      ),
    )
  })
})
