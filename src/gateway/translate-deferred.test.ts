/**
 * Deferred tools through translate mode: an Anthropic client (the official SDK) deferring every MCP tool of the tool-search fixtures and asking
 * for Anthropic's tool search, an OpenAI Chat upstream (the replay server, scripted) that has none. The gateway
 * offers the upstream its own search tool, answers the searches, shows them to the client as Anthropic's server
 * tool blocks, and the found tool is called by the model and run by the client.
 */
import { readFileSync } from "node:fs"
import Anthropic from "@anthropic-ai/sdk"
import type {
  BetaContentBlock,
  BetaContentBlockParam,
  BetaMessageParam,
  BetaToolUnion,
} from "@anthropic-ai/sdk/resources/beta/messages/messages"
import { afterEach, describe, expect, it } from "vitest"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { scriptOf } from "../replay/test-helpers/fixtures.js"
import { SEARCH_TOOLS_NAME } from "../tools/search/index.js"
import { BASH, deferredToolList, fixtureTools } from "./deferred-tools/test-helpers.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"

let replay: ReplayServer | undefined
let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close(0)
  await replay?.close()
})

const ISSUE = { owner: "acme", repo: "app", title: "Crash on start" }
const search = (query: string) => ({
  toolCalls: [{ name: SEARCH_TOOLS_NAME, input: { query } }],
  usage: { input: 100, output: 5 },
})
const records: GatewayRecord[] = []

async function start(turns: Parameters<typeof scriptOf>, deferredTools?: "search" | "send-all") {
  replay = await startReplayServer({ script: scriptOf(...turns) })
  records.length = 0
  gateway = await startGateway({
    config: {
      port: 0,
      upstreams: { chat: { provider: "openai", format: "openai-chat", baseUrl: `${replay.url}/v1`, keyEnv: "K" } },
      routes: [{ match: "claude-*", upstream: "chat", model: "gpt-4.1", ...(deferredTools ? { deferredTools } : {}) }],
    },
    env: { K: "sk-fake-deferred-key-00" },
    onRequest: (r) => records.push(r),
  })
  return new Anthropic({ apiKey: "client", baseURL: gateway.urls.anthropic, maxRetries: 0 })
}

interface ChatBody {
  tools?: { function: { name: string; parameters: unknown } }[]
  messages: { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string } }[] }[]
}
const sent = (i: number) => replay!.requests[i]!.body as ChatBody
const offered = (i: number) => (sent(i).tools ?? []).map((t) => t.function.name)

const first: BetaMessageParam = { role: "user", content: "Open an issue about the crash on start." }
const params = (messages: BetaMessageParam[]) => ({
  model: "claude-sonnet-4-5",
  max_tokens: 1000,
  tools: deferredToolList() as unknown as BetaToolUnion[],
  messages,
})

/** The client's request answered, streamed (the SDK's final message) or whole. */
async function ask(client: Anthropic, messages: BetaMessageParam[], streamed: boolean) {
  if (streamed) return client.beta.messages.stream(params(messages)).finalMessage()
  return client.beta.messages.create(params(messages))
}

const types = (content: readonly BetaContentBlock[]) => content.map((b) => b.type)

for (const streamed of [true, false]) {
  describe(`deferred tools searched by the gateway (${streamed ? "streamed" : "whole"})`, () => {
    it("the client sees the search as server tool blocks, then the found tool's call; its result goes through", async () => {
      const client = await start([
        search("create an issue on github"),
        {
          toolCalls: [{ name: "mcp__github__create_issue", input: ISSUE }],
          expect: { tools: ["mcp__github__create_issue"] },
          usage: { input: 200, output: 7 },
        },
        { text: "Opened the issue." },
      ])
      const answer = await ask(client, [first], streamed)
      expect(types(answer.content)).toEqual(["server_tool_use", "tool_search_tool_result", "tool_use"])
      const [use, result, call] = answer.content
      expect(use).toMatchObject({ name: "tool_search_tool_bm25", input: { query: "create an issue on github" } })
      const refs = (result as { content: { tool_references: { tool_name: string }[] } }).content.tool_references
      expect(refs.map((r) => r.tool_name)).toContain("mcp__github__create_issue")
      expect(call).toMatchObject({ type: "tool_use", name: "mcp__github__create_issue", input: ISSUE })
      expect(answer.stop_reason).toBe("tool_use")
      // The upstream: first the loaded tool and the search tool only, then the found tools too.
      expect(offered(0)).toEqual(["Bash", SEARCH_TOOLS_NAME])
      expect(offered(1)).toContain("mcp__github__create_issue")
      expect(offered(1)).not.toContain("mcp__slack__slack_post_message")
      // One client request, one record, the usage of both rounds.
      expect(records).toHaveLength(1)
      expect(records[0]!.dropped ?? []).toEqual([])
      expect(records[0]!.usage).toMatchObject({ input: 300, output: 12 })
      expect(answer.usage).toMatchObject({ input_tokens: 300, output_tokens: 12 })

      // The client runs the tool and sends its result, with the search blocks as they came.
      const second = await ask(
        client,
        [
          first,
          { role: "assistant", content: answer.content as unknown as BetaContentBlockParam[] },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: (call as { id: string }).id, content: "Issue #7" }],
          },
        ],
        streamed,
      )
      expect(second.content).toEqual([expect.objectContaining({ type: "text", text: "Opened the issue." })])
      // The upstream got the found tool's definition and the search as a call of its search tool with its result.
      const third = sent(2)
      const issue = third.tools?.find((t) => t.function.name === "mcp__github__create_issue")
      expect(issue?.function.parameters).toMatchObject({ required: expect.arrayContaining(["owner", "repo", "title"]) })
      const searchCall = third.messages.find((m) => m.tool_calls?.[0]?.function.name === SEARCH_TOOLS_NAME)
      expect(searchCall).toBeDefined()
      const searchResult = third.messages.find(
        (m) => m.role === "tool" && JSON.stringify(m.content).includes("now in your tool list"),
      )
      expect(searchResult).toBeDefined()
      // The second request's prefix is the one the upstream saw in the loop's second round.
      expect(third.messages.slice(0, sent(1).messages.length)).toEqual(sent(1).messages)
    })

    it("a search with no result shows an empty result, and the model answers without a tool", async () => {
      const client = await start([search("qqqq zzzz"), { text: "No tool does that." }])
      const answer = await ask(client, [first], streamed)
      expect(types(answer.content)).toEqual(["server_tool_use", "tool_search_tool_result", "text"])
      expect((answer.content[1] as { content: unknown }).content).toEqual({
        type: "tool_search_tool_search_result",
        tool_references: [],
      })
      expect(answer.stop_reason).toBe("end_turn")
      expect(JSON.stringify(sent(1).messages)).toContain('No tool matched \\"qqqq zzzz\\"')
    })

    it("stops at the round limit: the fourth upstream call is offered no search tool", async () => {
      const client = await start([search("one"), search("two"), search("three"), { text: "Giving up." }])
      const answer = await ask(client, [first], streamed)
      expect(types(answer.content)).toEqual([
        "server_tool_use",
        "tool_search_tool_result",
        "server_tool_use",
        "tool_search_tool_result",
        "server_tool_use",
        "tool_search_tool_result",
        "text",
      ])
      expect([0, 1, 2, 3].map((i) => offered(i).includes(SEARCH_TOOLS_NAME))).toEqual([true, true, true, false])
    })
  })
}

describe("a client that searches itself (Claude Code's ToolSearch)", () => {
  it("the tools its search result references are loaded for the upstream, and the model is told in text", async () => {
    const client = await start([{ toolCalls: [{ name: "mcp__github__create_issue", input: ISSUE }] }])
    const issue = deferredToolList().find((t) => t.name === "mcp__github__create_issue")!
    const toolSearch = { name: "ToolSearch", description: "Fetches deferred tools.", input_schema: { type: "object" } }
    const answer = await client.beta.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 1000,
      tools: [BASH, toolSearch, issue] as unknown as BetaToolUnion[],
      messages: [
        first,
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_s", name: "ToolSearch", input: { query: "issue" } }],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_s",
              content: [{ type: "tool_reference", tool_name: "mcp__github__create_issue" }],
            },
          ],
        },
      ],
    })
    expect(answer.content).toEqual([expect.objectContaining({ type: "tool_use", name: "mcp__github__create_issue" })])
    expect(offered(0)).toEqual(["Bash", "ToolSearch", "mcp__github__create_issue"])
    const result = sent(0).messages.find((m) => m.role === "tool")
    expect(result?.content).toContain("Loaded into your tool list: mcp__github__create_issue")
    expect(records[0]!.dropped ?? []).toEqual([])
  })
})

describe("deferred tools no model will be offered", () => {
  it("are named as dropped, in the header and the record, when the client has its own search_tools", async () => {
    const client = await start([{ text: "Done." }])
    const own = { name: SEARCH_TOOLS_NAME, description: "The client's own search.", input_schema: { type: "object" } }
    const [bash, ...rest] = deferredToolList()
    const { data, response } = await client.beta.messages
      .create({
        model: "claude-sonnet-4-5",
        max_tokens: 1000,
        tools: [bash, own, ...rest] as unknown as BetaToolUnion[],
        messages: [first],
      })
      .withResponse()
    expect(types(data.content)).toEqual(["text"])
    // The upstream gets the client's own tools only: no search of the gateway's, no deferred tool.
    expect(offered(0)).toEqual(["Bash", SEARCH_TOOLS_NAME])
    // The BM25 search the client asked for (tools[2]: Bash and search_tools come first) is named with why, then
    // every deferred tool (tools[3] on), none else.
    const why = `tools[2] (the gateway's tool search is off: the client has a tool named "${SEARCH_TOOLS_NAME}")`
    const paths = fixtureTools().map((_, i) => `tools[${i + 3}]`)
    expect(records[0]!.dropped).toEqual([why, ...paths])
    const header = response.headers.get("x-promptline-dropped")!
    expect(header.startsWith(`${why}, tools[3], tools[4], `)).toBe(true)
    expect(header.length).toBeLessThanOrEqual(1000)
  })
})

describe("deferred tools, sent all", () => {
  it("send-all: every deferred tool is an ordinary tool upstream, and nothing is searched", async () => {
    const client = await start([{ text: "Done." }], "send-all")
    const answer = await ask(client, [first], true)
    expect(types(answer.content)).toEqual(["text"])
    expect(offered(0)).toHaveLength(1 + fixtureTools().length)
    expect(offered(0)).not.toContain(SEARCH_TOOLS_NAME)
  })
})

describe("token counting with deferred tools", () => {
  it("counts the request as its first upstream request carries the tools: searched, far below sending them all", async () => {
    const count = async (deferredTools: "search" | "send-all") => {
      const client = await start([{ text: "unused" }], deferredTools)
      const { input_tokens } = await client.beta.messages.countTokens(params([first]))
      await gateway!.close(0)
      await replay!.close()
      gateway = replay = undefined
      return input_tokens
    }
    const searched = await count("search")
    const all = await count("send-all")
    // The Chat upstream has no counting endpoint: promptline counts. Searched: Bash and search_tools only.
    expect(searched).toBeGreaterThan(0)
    expect(searched * 20).toBeLessThan(all)
  })
})

describe("a request without deferred tools", () => {
  it("reaches the upstream byte for byte as before", async () => {
    const client = await start([{ text: "Done." }])
    await client.beta.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 1000,
      system: "You are terse.",
      tools: [BASH as BetaToolUnion],
      messages: [first],
    })
    const golden = readFileSync(
      new URL("../../test/fixtures/gateway/no-deferred-tools.chat.json", import.meta.url),
      "utf8",
    )
    expect(`${JSON.stringify(replay!.requests[0]!.body, null, 2)}\n`).toBe(golden)
  })
})
