// bench/gateway-deferred-tools: an Anthropic client's request deferring every MCP tool of test/fixtures/tool-search
// (456 tools of 28 real servers' tools/list) with Anthropic's tool search, translated for an OpenAI Chat upstream (gpt-4.1), which has no tool
// search. Counts, with promptline's token counter, the tool-definition tokens of each upstream request when the
// gateway searches for the model (deferredTools: "search") against sending every deferred tool ("send-all"): the
// first request (the search tool only), the second (after a search found the issue tools), and the whole client
// request (both upstream calls) against the one call that sends them all. The upstream's rounds are scripted
// (round 1 searches, round 2 calls a found tool); the search and the loop are the gateway's own. And the time to
// plan such a request when its model searches nothing (the index is built on the first search) against a plan whose
// search runs once.

import { type RoundRequest, searchLoop } from "../src/gateway/deferred-tools/loop.js"
import { planDeferredTools } from "../src/gateway/deferred-tools/plan.js"
import { deferredToolList } from "../src/gateway/deferred-tools/test-helpers.js"
import { overheadOf, TokenCounter } from "../src/history/tokens.js"
import { resolveModel } from "../src/models/resolve.js"
import { decodeAnthropicRequest } from "../src/providers/anthropic/request-decode.js"
import type { StreamEvent } from "../src/providers/stream.js"
import type { DecodedRequest } from "../src/providers/types.js"
import { SEARCH_TOOLS_NAME } from "../src/tools/search/index.js"
import { type Benchmark, type Metric, quantile, sample } from "./harness.js"

const QUERY = "create an issue on github"

/** One scripted upstream round: a call, usage, the stop. */
function round(id: string, name: string, input: unknown): StreamEvent[] {
  return [
    { type: "start" },
    { type: "tool_call_start", id, name },
    { type: "tool_call_end", id, input },
    { type: "usage", input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    { type: "stop", reason: "tool_use" },
  ]
}

/** The upstream requests of one client request under the search loop. */
async function searchedRounds(request: DecodedRequest): Promise<RoundRequest[]> {
  const plan = planDeferredTools(request, "search")
  if (!plan?.search) throw new Error("the request did not plan a gateway search")
  const asked: RoundRequest[] = []
  const call = async function* (req: RoundRequest, n: number) {
    asked.push(req)
    yield n === 0
      ? round("c0", SEARCH_TOOLS_NAME, { query: QUERY })
      : round("c1", "mcp__github__create_issue", { owner: "o", repo: "r", title: "t" })
  }
  for await (const _ of searchLoop({ request: plan.request, search: plan.search, call }));
  return asked
}

const gatewayDeferredTools: Benchmark = {
  name: "gateway-deferred-tools",
  async run(): Promise<Metric[]> {
    const request = decodeAnthropicRequest({
      model: "claude-sonnet-4-5",
      max_tokens: 1000,
      tools: deferredToolList(),
      messages: [{ role: "user", content: "Open an issue about the crash on start." }],
    })
    const deferred = request.prompt.deferredTools?.length ?? 0
    const model = resolveModel("gpt-4.1").model
    const counter = await TokenCounter.create()
    const tokens = (req: Pick<RoundRequest, "prompt">) =>
      counter.countTools(req.prompt.tools, model.tokenizer, overheadOf("openai-chat"))
    const [first, second] = await searchedRounds(request)
    const all = planDeferredTools(request, "send-all")!.request
    const sendAll = tokens(all)
    const found = second!.prompt.tools.length - first!.prompt.tools.length
    process.stdout.write(
      `  upstream tools: send-all ${all.prompt.tools.length}; search ${first!.prompt.tools.length}, then ${second!.prompt.tools.length} (search for "${QUERY}" found ${found})\n`,
    )
    // Planning alone (a model that answers without searching) against planning and one search.
    const planMs = quantile(await sample(() => planDeferredTools(request, "search"), 30, 5), 0.5) / 1000
    const searchedMs =
      quantile(await sample(() => planDeferredTools(request, "search")!.search!.index.search(QUERY), 10, 2), 0.5) / 1000
    const vsSendAll = (name: string, ours: number, target: boolean): Metric => ({
      name,
      unit: "tokens",
      ours,
      peer: { name: "send-all", value: sendAll },
      better: "lower",
      ...(target ? { target: "≤ 15% of sending them all", met: ours <= 0.15 * sendAll } : {}),
    })
    return [
      vsSendAll(`tool tokens, first upstream request (${deferred} deferred MCP tools, gpt-4.1)`, tokens(first!), true),
      vsSendAll(`tool tokens, upstream request after the search found ${found} tools`, tokens(second!), true),
      vsSendAll(
        "tool tokens of the whole client request (2 upstream calls against 1)",
        tokens(first!) + tokens(second!),
        false,
      ),
      {
        name: `planning a request with ${deferred} deferred tools whose model searches nothing`,
        unit: "ms",
        ours: planMs,
        peer: { name: "planning it and one search (the index built)", value: searchedMs },
        better: "lower",
      },
    ]
  },
}

export default gatewayDeferredTools
