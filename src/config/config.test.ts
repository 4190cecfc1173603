import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runCli } from "../cli/test-helpers/run.js"
import { FileError } from "../errors.js"
import { CONFIG_FILE, configDiagnostics, loadConfig, parseConfig } from "./config.js"
import { rememberTrust, trustOf } from "./trust.js"

let dir: string
let home: string
let project: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-config-"))
  home = join(dir, "home")
  project = join(dir, "work", "shop")
  await mkdir(join(home, ".config", "promptline"), { recursive: true })
  await mkdir(join(project, "src"), { recursive: true })
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})
const userFile = () => join(home, ".config", "promptline", CONFIG_FILE)

describe("parseConfig", () => {
  it("takes comments and trailing commas", () => {
    const text =
      '{\n  // the team default\n  "model": "gpt-5",\n  "models": [{ "id": "in-house", "contextWindow": 32000, "maxOutput": 4096 },],\n}\n'
    expect(parseConfig(text, "c.json")).toMatchObject({ model: "gpt-5", models: [{ id: "in-house" }] })
  })

  it("names the file, the line and the field of a bad value", () => {
    const text =
      '{\n  "model": "gpt-5",\n  "models": [\n    { "id": "x", "contextWindow": -5, "maxOutput": 10 }\n  ]\n}\n'
    const error = (() => {
      try {
        parseConfig(text, "c.json")
      } catch (e) {
        return e as FileError
      }
    })()
    expect(error).toBeInstanceOf(FileError)
    expect(error!.code).toBe("config-invalid")
    expect(error!.message).toMatch(/^c\.json:4: field "models\[0\]\.contextWindow"/)
  })

  it("names an unknown field and lists the known ones; a syntax error gives its line", () => {
    expect(() => parseConfig('{\n  "modle": "gpt-5"\n}', "c.json")).toThrow(
      /c\.json:2: field "modle": unknown field \(the fields are: .*model/,
    )
    expect(() => parseConfig('{\n  "model": \n}', "c.json")).toThrow(
      'c.json:3:1: not valid JSON with comments: expected a value, found "}"',
    )
    // The parser's own code names (CommaExpected) are never shown: plain words, with the line and column.
    expect(() => parseConfig('{\n  "model": "gpt-5"\n  "provider": "openai"\n}', "c.json")).toThrow(
      'c.json:3:3: not valid JSON with comments: a comma is missing before "provider"',
    )
  })
})

describe("the gateway section", () => {
  const gateway = {
    port: 0,
    tokenEnv: "PL_TOKEN",
    upstreams: { local: { provider: "openai", format: "openai-chat", baseUrl: "http://127.0.0.1:9/v1", keyEnv: "K" } },
    routes: [{ match: "claude-*", upstream: "local", model: "gpt-5", mode: "translate", cache: "optimize", fit: true }],
  }

  it("reads upstreams, routes and limits", () => {
    expect(parseConfig(JSON.stringify({ gateway }), "c.json").gateway).toEqual(gateway)
  })

  it("names the line and field of a route to an unknown upstream, and lists a nested object's own fields", () => {
    const text = JSON.stringify({ gateway: { ...gateway, routes: [{ match: "*", upstream: "nowhere" }] } }, null, 2)
    expect(() => parseConfig(text, "c.json")).toThrow(
      /c\.json:\d+: field "gateway\.routes\[0\]\.upstream": no upstream named "nowhere" \(the upstreams are: local\)/,
    )
    const typo = JSON.stringify({ gateway: { routes: [{ match: "*", upstream: "x", modle: "y" }] } }, null, 2)
    expect(() => parseConfig(typo, "c.json")).toThrow(
      /c\.json:7: field "gateway\.routes\[0\]\.modle": unknown field \(the fields are: match, upstream, model, mode, cache, fit, deferredTools\)/,
    )
    expect(() => parseConfig('{ "gateway": { "port": 70000 } }', "c.json")).toThrow(/field "gateway\.port"/)
  })

  it("reads a route's ordered upstreams and the fallback policy, naming the line and field of a bad one", () => {
    const upstreams = { ...gateway.upstreams, spare: { provider: "anthropic" } }
    const routes = [{ match: "*", upstream: ["local", { upstream: "spare", model: "claude-x" }] }]
    const fallback = { headersTimeoutMs: 5000, retryAfterMaxMs: 0, breaker: { failures: 2, cooldownMs: 1000 } }
    const ok = { gateway: { upstreams, routes, fallback } }
    expect(parseConfig(JSON.stringify(ok), "c.json").gateway).toEqual(ok.gateway)
    const unknown = { gateway: { upstreams, routes: [{ match: "*", upstream: ["local", "gone"] }] } }
    expect(() => parseConfig(JSON.stringify(unknown, null, 2), "c.json")).toThrow(
      /c\.json:\d+: field "gateway\.routes\[0\]\.upstream\[1\]": no upstream named "gone"/,
    )
    const empty = { gateway: { upstreams, routes: [{ match: "*", upstream: [] }] } }
    expect(() => parseConfig(JSON.stringify(empty, null, 2), "c.json")).toThrow(
      /field "gateway\.routes\[0\]\.upstream"/,
    )
    const capped = { gateway: { fallback: { breaker: { cooldownMs: 5000, maxCooldownMs: 1000 } } } }
    expect(() => parseConfig(JSON.stringify(capped, null, 2), "c.json")).toThrow(
      /field "gateway\.fallback\.breaker\.maxCooldownMs": is less than cooldownMs/,
    )
  })

  it("names each translate-only option a route's mode leaves unused: the file, its line, the route and the option", () => {
    const routes = [
      { match: "claude-*", upstream: "claude", mode: "same-format", fit: true, cache: "optimize" },
      { match: "gpt-*", upstream: "local", fit: true },
      { match: "*", upstream: "local", mode: "translate", fit: true, cache: "optimize" },
      { match: "x-*", upstream: "claude", mode: "same-format", fit: false },
    ]
    const upstreams = { ...gateway.upstreams, claude: { provider: "anthropic" } }
    const text = JSON.stringify({ gateway: { upstreams, routes } }, null, 2)
    const lineOf = (needle: string, from: string) => {
      const lines = text.split("\n")
      const start = lines.findIndex((l) => l.includes(from))
      return start + lines.slice(start).findIndex((l) => l.includes(needle)) + 1
    }
    const found = configDiagnostics(parseConfig(text, "gw.json"), text, "gw.json")
    expect(found.map((d) => [d.level, d.code, d.path, d.line])).toEqual([
      ["error", "config-route-option-unused", "gw.json", lineOf('"fit"', '"claude-*"')],
      ["error", "config-route-option-unused", "gw.json", lineOf('"cache"', '"claude-*"')],
      ["warning", "config-route-option-unused", "gw.json", lineOf('"fit"', '"gpt-*"')],
    ])
    expect(found[0]!.message).toBe(
      'route 1 ("claude-*") forwards requests unchanged ("mode": "same-format"), so its "fit" never applies; remove it, or set "mode": "translate"',
    )
    expect(found[2]!.message).toBe(
      'route 2 ("gpt-*") forwards the requests of clients that speak openai-chat unchanged to upstream "local", so its "fit" applies only to the other clients\' requests, which it translates; set "mode": "translate" to apply it to all',
    )
    expect(configDiagnostics(parseConfig(JSON.stringify({ gateway }), "c.json"), "{}", "c.json")).toEqual([])
  })

  it("names each remote upstream a token-guarded gateway would call without a key, and one without routes", () => {
    const upstreams = {
      claude: { provider: "anthropic" },
      keyed: { provider: "openai", keyEnv: "OPENAI_KEY" },
      local: { provider: "openai", format: "openai-chat", baseUrl: "http://127.0.0.1:11434/v1" },
      remote: { provider: "openai", format: "openai-chat", baseUrl: "https://llm.example.com/v1" },
    }
    const routes = [{ match: "*", upstream: "keyed" }]
    const text = JSON.stringify({ gateway: { tokenEnv: "GW_TOKEN", upstreams, routes } }, null, 2)
    const found = configDiagnostics(parseConfig(text, "gw.json"), text, "gw.json")
    const lines = text.split("\n")
    expect(found.map((d) => [d.level, d.code, d.line])).toEqual([
      ["warning", "config-upstream-keyless", lines.findIndex((l) => l.includes('"claude"')) + 1],
      ["warning", "config-upstream-keyless", lines.findIndex((l) => l.includes('"remote"')) + 1],
    ])
    expect(found[0]!.message).toContain('upstream "claude" has no "keyEnv"')
    // Without a token, the client's own key goes on: nothing to say.
    const open = JSON.stringify({ gateway: { upstreams, routes } })
    expect(configDiagnostics(parseConfig(open, "c.json"), open, "c.json")).toEqual([])
    const bare = JSON.stringify({ gateway: { tokenEnv: "GW_TOKEN" } }, null, 2)
    const none = configDiagnostics(parseConfig(bare, "c.json"), bare, "c.json")
    expect(none.map((d) => [d.code, d.line])).toEqual([["config-upstream-keyless", 3]])
    expect(none[0]!.message).toMatch(/has no routes, so each request goes to its official provider without a key/)
  })

  it("reads the shared-state store, and names the line and field of a bad one without quoting its URL", () => {
    const store = { kind: "redis", url: "redis://u:pw-0123456789@127.0.0.1:6379/0", keyPrefix: "gw:", timeoutMs: 200 }
    expect(parseConfig(JSON.stringify({ gateway: { store } }), "c.json").gateway?.store).toEqual(store)
    expect(parseConfig('{ "gateway": { "store": { "kind": "memory" } } }', "c.json").gateway?.store).toEqual({
      kind: "memory",
    })
    const bad = (value: unknown) => JSON.stringify({ gateway: { port: 1, store: value } }, null, 2)
    expect(() => parseConfig(bad({ kind: "redis", url: "http://u:pw-0123456789@host" }), "c.json")).toThrow(
      /^c\.json:6: field "gateway\.store\.url": a redis:\/\/ or rediss:\/\/ URL$/,
    )
    expect(() => parseConfig(bad({ kind: "redis", url: "redis://h", keyprefix: "x" }), "c.json")).toThrow(
      /c\.json:7: field "gateway\.store\.keyprefix": unknown field \(the fields are: kind, url, keyPrefix, timeoutMs, ttlSeconds\)/,
    )
    expect(() => parseConfig(bad({ kind: "memcached" }), "c.json")).toThrow(/c\.json:5: field "gateway\.store\.kind": /)
    expect(() => parseConfig(bad({ kind: "redis" }), "c.json")).toThrow(
      /c\.json:4: field "gateway\.store\.url": required with "kind": "redis"/,
    )
    expect(() => parseConfig(bad({ kind: "memory", url: "redis://h" }), "c.json")).toThrow(
      /c\.json:6: field "gateway\.store\.url": a Redis setting, not taken with "kind": "memory"/,
    )
  })
})

describe("loadConfig", () => {
  it("takes the gateway's limits from the project over the user's, and its port from the user's file only", async () => {
    await writeFile(userFile(), JSON.stringify({ gateway: { port: 1, bodyLimit: 10 } }))
    expect((await loadConfig({ cwd: project, home, env: {} })).config).toMatchObject({
      gateway: { port: 1, bodyLimit: 10 },
      gatewayFiles: [userFile()],
    })
    await writeFile(join(project, CONFIG_FILE), JSON.stringify({ gateway: { port: 2, bodyLimit: 20 } }))
    const { config, diagnostics } = await loadConfig({ cwd: project, home, env: {} })
    expect(config).toMatchObject({
      gateway: { port: 1, bodyLimit: 20 },
      gatewayFiles: [userFile(), join(project, CONFIG_FILE)],
    })
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([["config-user-only", join(project, CONFIG_FILE)]])
  })

  it("checks the routes of the user's file (a project's routes are ignored, with their own warning)", async () => {
    const routes = [{ match: "*", upstream: "up", mode: "same-format", cache: "optimize" }]
    const gateway = { upstreams: { up: { provider: "anthropic" } }, routes }
    await writeFile(userFile(), JSON.stringify({ gateway }, null, 2))
    const { diagnostics } = await loadConfig({ cwd: project, home, env: {} })
    expect(diagnostics.map((d) => [d.level, d.code, d.path, d.line])).toEqual([
      ["error", "config-route-option-unused", userFile(), 13],
    ])
    expect(diagnostics[0]!.message).toMatch(/^route 1 \("\*"\) forwards requests unchanged .*its "cache" never applies/)
    await writeFile(userFile(), "{}")
    await writeFile(join(project, CONFIG_FILE), JSON.stringify({ gateway }))
    const ignored = await loadConfig({ cwd: project, home, env: {} })
    expect(ignored.diagnostics.map((d) => d.code)).toEqual(["config-user-only"])
  })

  it("puts the project's values over the user's and completes model rows", async () => {
    await writeFile(
      userFile(),
      JSON.stringify({ model: "gpt-5", models: [{ id: "mine-7b", contextWindow: 8000, maxOutput: 1000 }] }),
    )
    await writeFile(join(project, CONFIG_FILE), JSON.stringify({ model: "claude-opus-4-5" }))
    const { config, diagnostics } = await loadConfig({ cwd: join(project, "src"), home, env: {} })
    expect(diagnostics).toEqual([])
    expect(config.model).toBe("claude-opus-4-5")
    expect(config.files).toEqual([userFile(), join(project, CONFIG_FILE)])
    expect(config.models[0]).toMatchObject({
      id: "mine-7b",
      contextWindow: 8000,
      tokenizer: "estimate",
      source: `config: ${userFile()}`,
    })
  })

  it("reads the traces section from the user's file only and resolves its folder from that file's folder", async () => {
    await writeFile(userFile(), JSON.stringify({ traces: { dir: "traces", maxConversations: 50, maxAgeDays: 7 } }))
    await writeFile(join(project, CONFIG_FILE), JSON.stringify({ traces: { maxAgeDays: 2 } }))
    const { config, diagnostics } = await loadConfig({ cwd: join(project, "src"), home, env: {} })
    expect(config.traces).toEqual({
      dir: join(home, ".config", "promptline", "traces"),
      maxConversations: 50,
      maxAgeDays: 7,
    })
    expect(diagnostics[0]?.message).toMatch(/^"traces\.maxAgeDays" ignored/)
    expect(() => parseConfig('{ "traces": { "maxBytes": -1 } }', "c.json")).toThrow(/traces\.maxBytes/)
    expect(() => parseConfig('{ "traces": { "keep": 3 } }', "c.json")).toThrow(/field "traces\.keep"/)
  })

  it("ignores trust in a project file, with a warning", async () => {
    await writeFile(join(project, CONFIG_FILE), JSON.stringify({ trustedFolders: [project] }))
    const { config, diagnostics } = await loadConfig({ cwd: project, home, env: {} })
    expect(config.trustedFolders).toEqual([])
    expect(diagnostics.map((d) => d.code)).toEqual(["config-trust-ignored"])
    expect(trustOf(config, project)).toEqual({ state: "unknown" })
  })
})

describe("trust", () => {
  it("records answers in the user's file, keeping its comments, and a trusted folder covers its subfolders", async () => {
    await writeFile(userFile(), '{\n  // mine\n  "model": "gpt-5"\n}\n')
    await rememberTrust(userFile(), project, true)
    await rememberTrust(userFile(), project, true)
    const text = await readFile(userFile(), "utf8")
    expect(text).toContain("// mine")
    const { config } = await loadConfig({ cwd: project, home, env: {} })
    expect(config.trustedFolders).toEqual([project])
    expect(trustOf(config, join(project, "src"))).toEqual({ state: "trusted", folder: project })
    expect(trustOf(config, `${project}-other`)).toEqual({ state: "unknown" })
    await rememberTrust(userFile(), join(dir, "elsewhere"), false)
    const after = await loadConfig({ cwd: project, home, env: {} })
    expect(trustOf(after.config, join(dir, "elsewhere"))).toMatchObject({ state: "declined" })
  })
})

describe("the CLI reads the config", () => {
  it("uses the config's default model and its model rows; a bad config is an error naming the field", async () => {
    await writeFile(
      join(project, CONFIG_FILE),
      JSON.stringify({
        model: "in-house-coder",
        provider: "local",
        models: [{ id: "in-house-coder", contextWindow: 16000, maxOutput: 2000, local: true }],
      }),
    )
    const env = { PATH: process.env.PATH, HOME: home }
    const r = await runCli(["variants", "--cwd", project], { env })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("in-house-coder")
    expect(r.stdout).toContain("compact")
    expect(r.stderr).not.toContain("model-unknown")
    await writeFile(join(project, CONFIG_FILE), '{ "model": 5 }')
    const bad = await runCli(["prompt", "--cwd", project, "--no-mcp"], { env })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/promptline\.config\.json:1: field "model"/)
  })
})
