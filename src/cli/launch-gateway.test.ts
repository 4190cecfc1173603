import { describe, expect, it } from "vitest"
import type { GatewayConfig } from "../config/gateway.js"
import { resolveSettings } from "../gateway/settings.js"
import { LAUNCH_TOKEN_ENV } from "./launch-agents.js"
import { launchGatewayConfig } from "./launch-gateway.js"

describe("the gateway config of a launch", () => {
  it("with no routes, sends every model to the official provider of the agent's API with the user's key", () => {
    expect(launchGatewayConfig(undefined, "anthropic", { ANTHROPIC_API_KEY: "k" })).toEqual({
      tokenEnv: LAUNCH_TOKEN_ENV,
      upstreams: { anthropic: { provider: "anthropic", format: "anthropic", keyEnv: "ANTHROPIC_API_KEY" } },
      routes: [{ match: "*", upstream: "anthropic" }],
    })
    expect(launchGatewayConfig({ bodyLimit: 5 }, "openai-chat", { OPENAI_API_KEY: "k" })).toEqual({
      bodyLimit: 5,
      tokenEnv: LAUNCH_TOKEN_ENV,
      upstreams: { openai: { provider: "openai", format: "openai-chat", keyEnv: "OPENAI_API_KEY" } },
      routes: [{ match: "*", upstream: "openai" }],
    })
    // The first of the provider's variables that is set.
    expect(launchGatewayConfig(undefined, "gemini", { GOOGLE_API_KEY: "k" }).upstreams).toEqual({
      gemini: { provider: "gemini", format: "gemini", keyEnv: "GOOGLE_API_KEY" },
    })
  })

  it("with no routes and no key, refuses naming the variables to set", () => {
    for (const [format, names] of [
      ["anthropic", "ANTHROPIC_API_KEY"],
      ["openai-responses", "OPENAI_API_KEY"],
      ["gemini", "GEMINI_API_KEY or GOOGLE_API_KEY"],
    ] as const)
      expect(() => launchGatewayConfig(undefined, format, { ANTHROPIC_API_KEY: "" })).toThrow(
        expect.objectContaining({
          code: "missing-api-key",
          message: expect.stringContaining(`set ${names}, or route`),
        }),
      )
  })

  it("keeps the user's routes, and gives each upstream without keyEnv its provider's key variable", () => {
    const config: GatewayConfig = {
      host: "0.0.0.0",
      tokenEnv: "USERS_OWN_TOKEN",
      upstreams: {
        own: { provider: "anthropic", keyEnv: "MY_KEY" },
        plain: { provider: "openai", format: "openai-chat" },
        proxy: { provider: "anthropic", baseUrl: "http://127.0.0.1:9/" },
        local: { provider: "ollama", baseUrl: "http://127.0.0.1:11434/v1" },
      },
      routes: [
        { match: "a-*", upstream: "own" },
        { match: "b-*", upstream: "plain" },
        { match: "c-*", upstream: "proxy" },
        { match: "*", upstream: "local" },
      ],
    }
    const out = launchGatewayConfig(config, "anthropic", { OPENAI_API_KEY: "k", MY_KEY: "m" })
    expect(out).toEqual({
      ...config,
      tokenEnv: LAUNCH_TOKEN_ENV,
      upstreams: {
        own: { provider: "anthropic", keyEnv: "MY_KEY" },
        plain: { provider: "openai", format: "openai-chat", keyEnv: "OPENAI_API_KEY" },
        // A base URL of the user's own may need no key: it goes without one when none is set.
        proxy: { provider: "anthropic", baseUrl: "http://127.0.0.1:9/" },
        local: { provider: "ollama", baseUrl: "http://127.0.0.1:11434/v1" },
      },
    })
    // The gateway takes it: the token from the launch's variable (the host is overridden to loopback at start).
    const settings = resolveSettings(
      out,
      { OPENAI_API_KEY: "k", MY_KEY: "m", [LAUNCH_TOKEN_ENV]: "t" },
      { host: "127.0.0.1", port: 0 },
    )
    expect(settings).toMatchObject({ host: "127.0.0.1", port: 0, token: "t" })
  })

  it("refuses a routed upstream of a provider whose key is not set, but not one no route reaches", () => {
    const config: GatewayConfig = {
      upstreams: { a: { provider: "anthropic" }, unused: { provider: "openai" } },
      routes: [{ match: "*", upstream: "a" }],
    }
    expect(() => launchGatewayConfig(config, "anthropic", { OPENAI_API_KEY: "k" })).toThrow(
      expect.objectContaining({
        code: "missing-api-key",
        message: expect.stringMatching(/^gateway\.upstreams\.a has no keyEnv and none of ANTHROPIC_API_KEY is set/),
      }),
    )
    expect(launchGatewayConfig(config, "anthropic", { ANTHROPIC_API_KEY: "k" }).upstreams).toEqual({
      a: { provider: "anthropic", keyEnv: "ANTHROPIC_API_KEY" },
      unused: { provider: "openai" },
    })
  })
})
