import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { GatewayConfig } from "../config/gateway.js"
import { routeOptionIssues, TRANSLATE_ONLY_ROUTE_OPTIONS } from "../config/gateway-routes.js"
import { descriptorOf, WIRE_FORMATS } from "../providers/descriptors.js"
import { globPattern, isRefusal, officialProvider, planRoute } from "./routing.js"
import { clientKey, hasToken, redactText } from "./secrets.js"

describe("routing", () => {
  it("sends each request to its own provider when there are no routes", () => {
    expect(officialProvider("anthropic")).toBe("anthropic")
    expect(officialProvider("openai-chat")).toBe("openai")
    expect(officialProvider("openai-responses")).toBe("openai")
    expect(officialProvider("gemini")).toBe("gemini")
    expect(planRoute("gemini", "gemini-2.5-pro", undefined)).toEqual({
      upstream: { name: "gemini", provider: "gemini", format: "gemini" },
      model: "gemini-2.5-pro",
      mode: "same-format",
    })
  })

  it("takes the first matching route; the mode defaults to same-format only between equal wire shapes", () => {
    const config = {
      upstreams: {
        ds: { provider: "deepseek" },
        claude: { provider: "anthropic", keyEnv: "K" },
      },
      routes: [
        { match: "deepseek-*", upstream: "ds" },
        { match: "claude-?-opus", upstream: "claude", model: "claude-opus-4-5", cache: "optimize" as const },
        { match: "*", upstream: "claude", mode: "same-format" as const },
      ],
    }
    expect(planRoute("openai-chat", "deepseek-chat", config)).toMatchObject({
      mode: "same-format",
      upstream: { format: "deepseek" },
      route: 0,
    })
    expect(planRoute("anthropic", "deepseek-chat", config)).toMatchObject({ mode: "translate" })
    expect(planRoute("openai-chat", "claude-4-opus", config)).toMatchObject({
      mode: "translate",
      model: "claude-opus-4-5",
      cache: "optimize",
      upstream: { name: "claude", keyEnv: "K" },
    })
    const refused = planRoute("gemini", "gemini-x", config)
    expect(isRefusal(refused) && refused.refused).toMatch(
      /route 3 \("\*"\) forwards unchanged to a anthropic upstream \(claude\), but this client speaks gemini/,
    )
    const none = planRoute("gemini", "x", { ...config, routes: config.routes.slice(0, 2) })
    expect(none).toEqual({
      refused: 'no route for model "x" (the routes match: deepseek-*, claude-?-opus)',
      kind: "not-found",
    })
  })

  it("gives fit, cache and deferredTools to exactly the requests it translates, and the config names every route where they miss some", () => {
    const clients = ["anthropic", "openai-chat", "openai-responses", "gemini"] as const
    fc.assert(
      fc.property(
        fc.constantFrom(...WIRE_FORMATS),
        fc.constantFrom(undefined, "same-format" as const, "translate" as const),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(undefined, "search" as const, "send-all" as const),
        fc.constantFrom(...clients),
        (format, mode, fit, cache, deferredTools, client) => {
          const config: GatewayConfig = {
            upstreams: { up: { provider: "anywhere", baseUrl: "http://127.0.0.1:9", format } },
            routes: [
              {
                match: "*",
                upstream: "up",
                ...(mode ? { mode } : {}),
                fit,
                ...(cache ? { cache: "optimize" } : {}),
                ...(deferredTools ? { deferredTools } : {}),
              },
            ],
          }
          const plan = planRoute(client, "m", config)
          const issues = routeOptionIssues(config)
          for (const option of TRANSLATE_ONLY_ROUTE_OPTIONS) {
            const asked = { fit, cache, deferredTools: deferredTools !== undefined }[option]
            const translated = !isRefusal(plan) && plan.mode === "translate"
            expect(!isRefusal(plan) && plan[option] !== undefined).toBe(asked && translated)
            const issue = issues.find((i) => i.option === option)
            if (!asked || mode === "translate") expect(issue).toBeUndefined()
            else if (mode === "same-format") expect(issue?.level).toBe("error")
            else {
              // The mode follows the client: only a client that speaks the upstream's format goes unchanged.
              expect(issue?.level).toBe("warning")
              expect(translated).toBe(descriptorOf(format).speaks !== client)
            }
          }
        },
      ),
    )
  })

  it("plans a route's upstreams in order, each in its own mode, with per-link models", () => {
    const config: GatewayConfig = {
      upstreams: {
        main: { provider: "anthropic" },
        spare: { provider: "anthropic", baseUrl: "http://127.0.0.1:9" },
        other: { provider: "openai", format: "openai-chat" },
      },
      routes: [{ match: "claude-*", upstream: ["main", "spare", { upstream: "other", model: "gpt-5" }], fit: true }],
    }
    const plan = planRoute("anthropic", "claude-x", config)
    expect(plan).toMatchObject({
      upstream: { name: "main" },
      model: "claude-x",
      mode: "same-format",
      route: 0,
      fit: true,
      fallbacks: [
        { upstream: { name: "spare" }, model: "claude-x", mode: "same-format" },
        { upstream: { name: "other", format: "openai-chat" }, model: "gpt-5", mode: "translate" },
      ],
    })
    // The single-upstream form plans no fallbacks at all (the common path stays as it was).
    const single = planRoute("anthropic", "claude-x", { ...config, routes: [{ match: "*", upstream: "main" }] })
    expect(!isRefusal(single) && "fallbacks" in single).toBe(false)
    // An explicit same-format route refuses a fallback of another wire shape, naming it.
    const strict = planRoute("anthropic", "claude-x", {
      ...config,
      routes: [{ match: "*", upstream: ["main", "other"], mode: "same-format" }],
    })
    expect(isRefusal(strict) && strict.refused).toMatch(/openai-chat upstream \(other\)/)
  })

  it("lets a model name pick a configured upstream (upstream,model) and refuses any other", () => {
    const config: GatewayConfig = {
      upstreams: { main: { provider: "anthropic" }, ds: { provider: "deepseek" } },
      routes: [{ match: "claude-*", upstream: "main" }],
    }
    expect(planRoute("anthropic", "ds,deepseek-chat", config)).toEqual({
      upstream: { name: "ds", provider: "deepseek", format: "deepseek" },
      model: "deepseek-chat",
      mode: "translate",
      picked: true,
    })
    expect(planRoute("anthropic", "nope,claude-x", config)).toEqual({
      refused: expect.stringMatching(/picks upstream "nope".*the upstreams are: main, ds/),
      kind: "not-found",
    })
    // Inherited object keys are not upstreams.
    expect(isRefusal(planRoute("anthropic", "constructor,m", config))).toBe(true)
    expect(isRefusal(planRoute("anthropic", "main,", config))).toBe(true)
    expect(isRefusal(planRoute("anthropic", "ds,m", undefined))).toBe(true)
  })

  it("makes each plan once per config and shares it, frozen, answering as a fresh config would", () => {
    const config = (): GatewayConfig => ({
      upstreams: {
        main: { provider: "anthropic" },
        spare: { provider: "anthropic", baseUrl: "http://127.0.0.1:9" },
        chat: { provider: "openai", format: "openai-chat" },
      },
      routes: [
        { match: "claude-*", upstream: ["main", "spare", { upstream: "chat", model: "gpt-5" }], fit: true },
        { match: "gpt-?", upstream: "chat", model: "gpt-4.1" },
        { match: "same-*", upstream: "main", mode: "same-format" },
      ],
    })
    const serving = config()
    const clients = ["anthropic", "openai-chat", "openai-responses", "gemini"] as const
    const models = ["claude-x", "gpt-5", "same-y", "none", "main,claude-z", "nowhere,m", "chat,"]
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...clients), fc.constantFrom(...models)), { minLength: 1, maxLength: 40 }),
        (asks) => {
          for (const [client, model] of asks) {
            const plan = planRoute(client, model, serving)
            // The same plan as one made for a config never asked before, and the same object every time.
            expect(plan).toEqual(planRoute(client, model, config()))
            expect(planRoute(client, model, serving)).toBe(plan)
            expect(Object.isFrozen(plan)).toBe(true)
            if (!isRefusal(plan)) {
              expect(Object.isFrozen(plan.upstream)).toBe(true)
              for (const step of plan.fallbacks ?? []) expect(Object.isFrozen(step.upstream)).toBe(true)
            }
          }
        },
      ),
    )
    // A config with other routes (a reload brings a new object) plans anew.
    const reloaded = { ...serving, routes: [{ match: "*", upstream: "chat" }] }
    expect(planRoute("anthropic", "claude-x", reloaded)).toMatchObject({
      upstream: { name: "chat" },
      mode: "translate",
    })
    expect(planRoute("anthropic", "claude-x", serving)).toMatchObject({ upstream: { name: "main" } })
  })

  it("matches globs literally apart from * and ?", () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        expect(globPattern(name.replace(/[*?]/g, "")).test(name.replace(/[*?]/g, ""))).toBe(true)
        expect(globPattern("*").test(name)).toBe(true)
      }),
    )
    expect(globPattern("gpt-5.1").test("gpt-5x1")).toBe(false)
  })
})

describe("secrets", () => {
  it("reads the client's key in any provider's style and checks the inbound token", () => {
    const q = new URLSearchParams()
    expect(clientKey({ "x-api-key": "a" })).toBe("a")
    expect(clientKey({ authorization: "Bearer b" })).toBe("b")
    expect(clientKey({ "x-goog-api-key": "c" })).toBe("c")
    expect(clientKey({}, new URLSearchParams("key=d"))).toBe("d")
    expect(hasToken({ authorization: "Bearer tok" }, q, "tok")).toBe(true)
    expect(hasToken({ "x-api-key": "tok" }, q, "tok")).toBe(true)
    expect(hasToken({ "x-api-key": "tok2" }, q, "tok")).toBe(false)
    expect(hasToken({}, q, "tok")).toBe(false)
  })

  it("redacts every secret from a text", () => {
    expect(redactText("key sk-12345678 then sk-12345678", ["sk-12345678", undefined])).toBe(
      "key [redacted] then [redacted]",
    )
  })
})
