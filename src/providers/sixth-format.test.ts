/**
 * A sixth wire format plugs in at one place: `registerWireFormat(dummyFormat)` below is the only line that adds the
 * test-only "dummy" format (providers/test-helpers/dummy-format.ts). Everything after it finds the format through
 * the set: the gateway serves it (same-format and translated, over real servers on 127.0.0.1), the replay server
 * answers it, the counters count it, the cache explainer explains it, the config and `request --format` accept it.
 */
import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Anthropic from "@anthropic-ai/sdk"
import fc from "fast-check"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { CacheExplainer, explainCache } from "../cache/explain.js"
import { runCli } from "../cli/test-helpers/run.js"
import type { GatewayConfig } from "../config/gateway.js"
import { gatewaySchema } from "../config/gateway.js"
import { PromptlineError } from "../errors.js"
import type { GatewayRecord } from "../gateway/record.js"
import { officialProvider } from "../gateway/routing.js"
import { type Gateway, startGateway } from "../gateway/server.js"
import { ContextManager } from "../history/context-manager.js"
import type { Message } from "../history/message.js"
import { countRequest } from "../history/request-count.js"
import { overheadOf, TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import { wireFormatOf } from "../models/wire.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { scriptOf } from "../replay/test-helpers/fixtures.js"
import { countingRouteOf, routeOf } from "./api-paths.js"
import { countingRequest, countTokens, hasCountingEndpoint } from "./count.js"
import { decodeResponse } from "./decode.js"
import type { WireFormatDescriptor } from "./descriptor.js"
import {
  descriptorOf,
  descriptorProblem,
  MAX_REGISTERED_FORMATS,
  WIRE_FORMAT_DESCRIPTORS,
  wireFormatDescriptors,
  wireFormats,
} from "./descriptors.js"
import { formatOfPayload } from "./detect.js"
import { endpointFor } from "./endpoints.js"
import { formatModule, registerWireFormat } from "./formats.js"
import { type DummyBody, dummyDescriptor, dummyFormat } from "./test-helpers/dummy-format.js"
import type { WireFormatModule } from "./types.js"

// The one place the sixth format is added.
registerWireFormat(dummyFormat)

let replay: ReplayServer | undefined
let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close(0)
  await replay?.close()
  gateway = undefined
  replay = undefined
})

const KEY = "sk-dummy-upstream-key-0001"

/** The turn of a script whose tests ask for no generation (counting, model lists). */
const UNASKED = { text: "not asked for" }

/** A dummy request body. */
function dummyBody(model: string, say: string, extra: Partial<DummyBody> = {}): DummyBody {
  return { model, system: "You are terse.", turns: [{ who: "user", say }], stream: true, ...extra }
}

/** Posts JSON to a server and decodes the dummy answer it streams. */
async function postDummy(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "client-key", ...headers },
    body: JSON.stringify(body),
  })
  return response
}

async function decodedDummy(response: Response) {
  return decodeResponse(formatModule("dummy"), response.body!, { ts: 0 })
}

/** A gateway whose routes send `dummy-*` models to the replay server speaking dummy, and `claude-*` to it speaking Anthropic. */
async function startBoth(turns: Parameters<typeof scriptOf>, records: GatewayRecord[] = []) {
  replay = await startReplayServer({ script: scriptOf(...turns) })
  const config: GatewayConfig = {
    port: 0,
    upstreams: {
      fake: { provider: "dummy", format: "dummy", baseUrl: replay.url, keyEnv: "K" },
      claude: { provider: "anthropic", format: "anthropic", baseUrl: replay.url, keyEnv: "K" },
    },
    routes: [
      { match: "dummy-*", upstream: "fake" },
      { match: "claude-*", upstream: "claude" },
      { match: "translated-*", upstream: "fake", model: "dummy-1" },
      { match: "dummy-fixed", upstream: "fake" },
    ],
  }
  gateway = await startGateway({ config, env: { K: KEY }, onRequest: (r) => records.push(r) })
  return { replay, gateway }
}

describe("registering a sixth wire format", () => {
  it("puts it in the set every table is read from", () => {
    expect(wireFormats()).toEqual([...WIRE_FORMAT_DESCRIPTORS.map((d) => d.format), "dummy"])
    expect(descriptorOf("dummy")).toBe(dummyDescriptor)
    expect(formatModule("dummy")).toBe(dummyFormat)
    expect(overheadOf("dummy")).toEqual(dummyDescriptor.overhead)
    expect(hasCountingEndpoint("dummy")).toBe(true)
    expect(wireFormatOf({ provider: "dummy", family: "" })).toBe("dummy")
    // The gateway's default route for a client of this format goes to the provider its descriptor names.
    expect(officialProvider("dummy")).toBe("dummy")
    expect(officialProvider("anthropic")).toBe("anthropic")
    expect(routeOf("/v1/dummy/generate", new URLSearchParams())?.format).toBe("dummy")
    expect(countingRouteOf("/v1/dummy/generate/count")?.format).toBe("dummy")
    expect(formatOfPayload({ say: "hi" })).toEqual({ format: "dummy", evidence: 'a "say" payload' })
    // The built-in paths still go to their own formats.
    expect(routeOf("/v1/messages", new URLSearchParams())?.format).toBe("anthropic")
  })

  it("refuses, with a typed error and no change to the set, what would clash or is incomplete", () => {
    const before = wireFormatDescriptors()
    const copy = (descriptor: Partial<WireFormatDescriptor>, module: Partial<WireFormatModule> = {}) => {
      const d = { ...dummyDescriptor, format: "dummy-two", defaultFor: { providers: [] }, ...descriptor }
      return { ...dummyFormat, format: d.format, speaks: d.speaks, descriptor: d, ...module } as WireFormatModule
    }
    const api = (generation: readonly string[], marks = {}) => ({
      ...dummyDescriptor.api,
      generation,
      counting: [],
      marks,
    })
    const cases: [WireFormatModule, string, RegExp][] = [
      [dummyFormat, "wire-format-conflict", /"dummy" is already in the set/],
      [
        copy({ api: api(["/v1/messages"]) }),
        "wire-format-conflict",
        /serves the client API path \/v1\/messages .*"anthropic"/,
      ],
      [copy({ api: api(["/v1/dummy/generate"]) }), "wire-format-conflict", /\/v1\/dummy\/generate .*"dummy"/],
      [copy({ api: api(["/v1/other"], { fallback: true }) }), "wire-format-conflict", /assumed when nothing else says/],
      [
        copy({ api: api(["/v1/other"], { header: "Anthropic-Version" }) }),
        "wire-format-conflict",
        /anthropic-version/i,
      ],
      [
        copy({ defaultFor: { providers: ["anthropic"] } }),
        "wire-format-conflict",
        /default format of the provider "anthropic"/,
      ],
      [copy({ format: "internal" }), "wire-format-conflict", /reserved/],
      [copy({ format: "Dummy 2" }), "wire-format-invalid", /lowercase letters/],
      [copy({ speaks: "deepseek" }), "wire-format-invalid", /speaks "deepseek"/],
      [
        copy({ endpoint: { ...dummyDescriptor.endpoint, compatible: true } }),
        "wire-format-invalid",
        /OpenAI-compatible/,
      ],
      [copy({}, { wireParts: undefined as never }), "wire-format-invalid", /lacks wireParts/],
      [copy({}, { format: "dummy-three" }), "wire-format-invalid", /disagree/],
    ]
    for (const [module, code, message] of cases) {
      const thrown = (() => {
        try {
          registerWireFormat(module)
        } catch (error) {
          return error
        }
      })()
      expect(thrown, String(module.format)).toBeInstanceOf(PromptlineError)
      expect((thrown as PromptlineError).code).toBe(code)
      expect((thrown as PromptlineError).message).toMatch(message)
      expect(wireFormatDescriptors()).toBe(before)
    }
    expect(() => descriptorOf("nope")).toThrow(
      /unknown wire format "nope" \(the wire formats are: anthropic, .*dummy\)/,
    )
    expect(() => formatModule("nope")).toThrow(PromptlineError)
  })

  it("refuses a client API path exactly when the set already routes it (property)", () => {
    const paths = fc.oneof(
      fc.constantFrom(
        ...wireFormatDescriptors().flatMap((d) =>
          [d.api?.generation, d.api?.counting].flatMap((r) => (Array.isArray(r) ? r : [])),
        ),
        "/v1beta/models/gemini-2.5-pro:generateContent",
        "/v1beta/models/x:countTokens",
      ),
      fc.stringMatching(/^\/v[0-9](\/[a-z:.-]{1,12}){1,3}$/),
    )
    fc.assert(
      fc.property(paths, (path) => {
        const candidate = {
          ...dummyDescriptor,
          format: "candidate",
          defaultFor: { providers: [] },
          api: { generation: [path] },
        }
        const routed = routeOf(path, new URLSearchParams()) ?? countingRouteOf(path)
        const problem = descriptorProblem(candidate)
        expect(problem?.code).toBe(routed ? "wire-format-conflict" : undefined)
      }),
    )
  })
})

describe("the replay server speaks the registered format", () => {
  it("answers streamed and whole requests in the dummy shape, and records them as dummy", async () => {
    replay = await startReplayServer({
      script: scriptOf(
        { text: "first answer", usage: { input: 40, output: 3 }, expect: { userText: "hello", system: "terse" } },
        { toolCalls: [{ name: "read_file", input: { path: "a.ts" } }], usage: { input: 50, output: 4 } },
      ),
    })
    const streamed = await decodedDummy(
      await postDummy(`${replay.url}/v1/dummy/generate`, { ...dummyBody("dummy-1", "hello"), note: 1 }),
    )
    expect(streamed.complete).toBe(true)
    expect(streamed.message.content).toEqual([{ type: "text", text: "first answer" }])
    expect(streamed.usage).toMatchObject({ input: 40, output: 3 })
    const tools = [{ tool: "read_file", about: "Reads a file.", input: { type: "object", properties: {} } }]
    const whole = await postDummy(
      `${replay.url}/v1/dummy/generate`,
      dummyBody("dummy-1", "go on", { stream: false, tools }),
    )
    expect(whole.status).toBe(200)
    const answer = (await whole.json()) as { calls: { tool: string; args: unknown }[]; end: string }
    expect(answer.calls).toEqual([{ id: "call_replay_1_0", tool: "read_file", args: { path: "a.ts" } }])
    expect(answer.end).toBe("tool")
    expect(replay.requests.map((r) => [r.format, r.outcome, r.unknownFields])).toEqual([
      ["dummy", "answered", ["note"]],
      ["dummy", "answered", undefined],
    ])
    // A third request has no turn left: the refusal is in the dummy error shape.
    const exhausted = await postDummy(`${replay.url}/v1/dummy/generate`, dummyBody("dummy-1", "more"))
    expect(exhausted.status).toBe(400)
    expect(await exhausted.json()).toEqual({
      oops: { kind: "invalid-request", message: expect.stringMatching(/exhausted/) },
    })
    const malformed = await postDummy(`${replay.url}/v1/dummy/generate`, { model: "dummy-1", turns: "no" })
    expect(malformed.status).toBe(400)
    expect(((await malformed.json()) as { oops: { message: string } }).oops.message).toMatch(/turns must be a list/)
  })
})

describe("the gateway serves the registered format", () => {
  it("forwards a dummy client's bytes unchanged to a dummy upstream (same-format)", async () => {
    const records: GatewayRecord[] = []
    await startBoth([{ text: "passed through", usage: { input: 20, output: 2 } }], records)
    const body = dummyBody("dummy-1", "hi", { max: 64 })
    const response = await postDummy(`${gateway!.url}/v1/dummy/generate`, body)
    expect(response.status).toBe(200)
    expect((await decodedDummy(response)).message.content).toEqual([{ type: "text", text: "passed through" }])
    const sent = replay!.requests[0]!
    expect([sent.path, sent.format, sent.body]).toEqual(["/v1/dummy/generate", "dummy", body])
    // The upstream's key in the dummy descriptor's auth header, never the client's.
    expect(sent.headers["x-api-key"]).toBe("[redacted]")
    expect(records[0]).toMatchObject({ mode: "same-format", clientFormat: "dummy", usage: { input: 20, output: 2 } })
  })

  it("translates a dummy client to an Anthropic upstream and the answer back", async () => {
    const records: GatewayRecord[] = []
    await startBoth(
      [{ text: "translated answer", usage: { input: 30, output: 3 }, expect: { userText: "^hi$", system: "terse" } }],
      records,
    )
    const response = await postDummy(`${gateway!.url}/v1/dummy/generate`, {
      ...dummyBody("claude-sonnet-4-5", "hi"),
      extra: true,
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-promptline-dropped")).toContain("extra")
    expect((await decodedDummy(response)).message.content).toEqual([{ type: "text", text: "translated answer" }])
    const sent = replay!.requests[0]!
    expect(sent.format).toBe("anthropic")
    expect(sent.body).toMatchObject({
      model: "claude-sonnet-4-5",
      system: [{ type: "text", text: "You are terse." }],
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    })
    expect(records[0]).toMatchObject({ mode: "translate", clientFormat: "dummy" })
    replay!.assertComplete()
  })

  it("translates an Anthropic client (its SDK) to a dummy upstream", async () => {
    await startBoth([{ text: "from the dummy upstream", usage: { input: 12, output: 4 } }])
    const client = new Anthropic({ apiKey: "client", baseURL: gateway!.urls.anthropic, maxRetries: 0 })
    const message = await client.messages.create({
      model: "translated-1",
      max_tokens: 50,
      system: "You are terse.",
      messages: [{ role: "user", content: "hi" }],
    })
    expect(message.content).toEqual([{ type: "text", text: "from the dummy upstream" }])
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 4 })
    const sent = replay!.requests[0]!
    expect([sent.path, sent.format]).toEqual(["/v1/dummy/generate", "dummy"])
    expect(sent.body).toMatchObject({ model: "dummy-1", system: "You are terse.", turns: [{ who: "user", say: "hi" }] })
  })

  it("counts a dummy client's request through either route, and answers in the dummy counting shape", async () => {
    await startBoth([UNASKED])
    const same = await postDummy(`${gateway!.url}/v1/dummy/generate/count`, dummyBody("dummy-1", "count me"))
    const translated = await postDummy(
      `${gateway!.url}/v1/dummy/generate/count`,
      dummyBody("claude-sonnet-4-5", "count me"),
    )
    const [a, b] = [(await same.json()) as { tokens: number }, (await translated.json()) as { tokens: number }]
    expect(a.tokens).toBeGreaterThan(0)
    expect(b.tokens).toBeGreaterThan(0)
    expect(replay!.requests.map((r) => [r.path, r.count !== undefined])).toEqual([
      ["/v1/dummy/generate/count", true],
      ["/v1/messages/count_tokens", true],
    ])
  })

  it("lists the routed models in the dummy shape, and names the dummy path among those it serves", async () => {
    await startBoth([UNASKED])
    const models = await fetch(`${gateway!.url}/v1/dummy/models`, { headers: { "x-api-key": "k" } })
    expect(await models.json()).toEqual({ models: ["dummy-fixed"] })
    const missing = await postDummy(`${gateway!.url}/v2/nowhere`, {})
    expect(missing.status).toBe(404)
    expect(JSON.stringify(await missing.json())).toContain("/v1/dummy/generate")
  })

  it("accepts the format in a gateway config, and names the set when a config names an unknown one", () => {
    const upstream = (format: string) => ({
      upstreams: { u: { provider: "dummy", format, baseUrl: "http://127.0.0.1:9" } },
    })
    expect(gatewaySchema.safeParse(upstream("dummy")).success).toBe(true)
    const refused = gatewaySchema.safeParse(upstream("dummy-x"))
    expect(refused.error?.issues[0]?.message).toBe(
      `unknown wire format "dummy-x" (the wire formats are: ${wireFormats().join(", ")})`,
    )
  })
})

describe("counting the registered format", () => {
  let counter: TokenCounter
  beforeAll(async () => {
    counter = await TokenCounter.create()
  })

  const messages: Message[] = [
    { id: "m1", role: "user", content: [{ type: "text", text: "read the file please" }], ts: 0 },
    {
      id: "m2",
      role: "assistant",
      content: [{ type: "tool_use", id: "c1", name: "read_file", input: { path: "a" } }],
      ts: 0,
    },
    { id: "m3", role: "user", content: [{ type: "tool_result", toolUseId: "c1", content: "contents" }], ts: 0 },
  ]
  const prompt = { text: "You are terse.", tools: [{ name: "read_file", description: "Reads.", parameters: {} }] }

  it("counts a request with the descriptor's overheads, as the context manager measures it", () => {
    const model = resolveModel("claude-sonnet-4-5").model
    const dummy = countRequest(counter, prompt, messages, model.tokenizer, overheadOf("dummy"))
    const measured = new ContextManager(counter).measure(messages, {
      model,
      system: prompt.text,
      tools: prompt.tools,
      wireFormat: "dummy",
    })
    expect(measured.tokens.local).toBe(dummy)
    // The dummy's overheads are not Anthropic's, and the count follows them.
    const anthropic = countRequest(counter, prompt, messages, model.tokenizer, overheadOf("anthropic"))
    expect(dummy).not.toBe(anthropic)
  })

  it("asks the provider's counting endpoint the descriptor names", async () => {
    replay = await startReplayServer({ script: scriptOf(UNASKED) })
    const endpoint = endpointFor({ provider: "dummy", baseUrl: replay.url, env: {}, apiKey: KEY })
    expect(endpoint).toMatchObject({ format: "dummy", headers: { "x-api-key": KEY } })
    const body = dummyBody("dummy-1", "count me") as unknown as Record<string, unknown>
    expect(countingRequest(endpoint, "dummy", "dummy-1", body).url).toBe(`${replay.url}/v1/dummy/generate/count`)
    const tokens = await countTokens(endpoint, { format: "dummy", model: "dummy-1", body })
    expect(tokens).toBe(replay.requests[0]!.count)
  })
})

describe("the cache explainer explains the registered format", () => {
  let counter: TokenCounter
  beforeAll(async () => {
    counter = await TokenCounter.create()
  })

  const system = "You are a careful engineer. ".repeat(40)
  const tool = (about: string) => ({ tool: "read_file", about, input: { type: "object", properties: {} } })
  const request = (at: number, body: DummyBody) => ({ format: "dummy", body, at })

  it("lays a dummy request out in the dummy's caching order and finds what changed", () => {
    const first = request(0, {
      model: "dummy-1",
      system,
      tools: [tool("Reads a file.")],
      turns: [{ who: "user", say: "hi" }],
    })
    const next = request(1000, {
      ...first.body,
      turns: [...first.body.turns, { who: "model", say: "hello" }, { who: "user", say: "again" }],
    })
    const hit = explainCache(first, next, undefined, { counter })
    expect(hit.verdict).toBe("hit")
    expect(hit.tokens.shared).toBeGreaterThan(0)
    // A tool edited: the dummy caches its system prompt before its tools, so that much is still shared.
    const edited = request(2000, { ...next.body, tools: [tool("Reads a file, whole.")] })
    const miss = explainCache(next, edited, undefined, { counter })
    expect(miss.verdict).toBe("miss")
    expect(miss.cause).toMatchObject({ kind: "tools-changed", change: "edited", tool: "read_file", path: "tools[0]" })
    const layout = new CacheExplainer({ counter }).layout(edited)
    expect(layout.scheme).toBe(dummyDescriptor.cache)
    expect([...new Set(layout.segments.map((s) => s.part))]).toEqual(["system", "tools", "messages"])
    const systemTokens = layout.segments.filter((s) => s.part === "system").reduce((n, s) => n + s.tokens, 0)
    expect(miss.tokens.shared).toBeGreaterThanOrEqual(systemTokens)
    expect(miss.tokens.shared).toBeLessThan(miss.tokens.total)
    expect(miss.lifetimeMs).toBe(dummyDescriptor.cache.defaultLifetimeMs)
  })
})

describe("the command line accepts the registered format", () => {
  let dir: string
  let contextFile: string
  let historyFile: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-sixth-"))
    contextFile = join(dir, "context.json")
    historyFile = join(dir, "history.json")
    await writeFile(contextFile, JSON.stringify(basicContext({ mcpServers: [] })))
    await writeFile(
      historyFile,
      JSON.stringify({
        turns: [
          { who: "user", say: "fix the test" },
          { who: "model", say: "On it." },
        ],
      }),
    )
  })

  it("prints the exact dummy body for `request --format dummy`, the history read as dummy", async () => {
    const r = await runCli(["request", "--context", contextFile, "--history", historyFile, "--format", "dummy"])
    expect(r.code).toBe(0)
    const body = JSON.parse(r.stdout) as DummyBody
    expect(body.model).toBe("claude-sonnet-4-5")
    expect(body.system!.length).toBeGreaterThan(100)
    expect(body.tools!.map((t) => Object.keys(t))).toContainEqual(["tool", "about", "input"])
    expect(body.turns.slice(-2)).toEqual([
      { who: "user", say: "fix the test" },
      { who: "model", say: "On it." },
    ])
    const json = JSON.parse((await runCli(["request", "--context", contextFile, "--format", "dummy", "--json"])).stdout)
    expect(json.format).toBe("dummy")
  })

  it("still refuses a format no one registered", async () => {
    const r = await runCli(["request", "--context", contextFile, "--format", "dummy-x"])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain("dummy")
  })
})

describe("the registry's bound", () => {
  it("takes at most MAX_REGISTERED_FORMATS formats besides the built-in ones", () => {
    const room = MAX_REGISTERED_FORMATS - (wireFormats().length - WIRE_FORMAT_DESCRIPTORS.length)
    const numbered = (n: number): WireFormatModule => {
      const format = `bound-${n}`
      const descriptor = { ...dummyDescriptor, format, defaultFor: { providers: [] }, api: undefined } as never
      return { ...dummyFormat, format, descriptor }
    }
    for (let n = 0; n < room; n++) registerWireFormat(numbered(n))
    expect(() => registerWireFormat(numbered(room))).toThrow(/at most 16 wire formats/)
    expect(wireFormats()).toHaveLength(WIRE_FORMAT_DESCRIPTORS.length + MAX_REGISTERED_FORMATS)
  })
})
