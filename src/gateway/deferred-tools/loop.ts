/**
 * The gateway's tool search loop, for a client that asked for a server-side tool search and an upstream that has
 * none: the upstream is offered promptline's search tool; its searches are answered by the gateway within the
 * same client request (the upstream asked again with the search and the tools it found), and the client is shown
 * each search as a `tool_search` event (for an Anthropic client: `server_tool_use` and `tool_search_tool_result`
 * blocks, as Anthropic streams its own). The model then calls the found tools, which the client runs. The
 * upstream call is a function given in; everything else is plain data.
 */
import type { Message, ToolSearchBlock } from "../../history/message.js"
import { Accumulator } from "../../providers/accumulate.js"
import { isErrorLevel } from "../../providers/completeness.js"
import { addUsage, type StreamEvent, type Usage } from "../../providers/stream.js"
import { searchQuery } from "../../providers/tool-search-history.js"
import type { DecodedRequest } from "../../providers/types.js"
import { clampLimit } from "../../tools/search/index.js"
import type { GatewaySearch } from "./plan.js"

/** Upstream calls one client request may make: the last one is made without the search tool. */
const DEFAULT_SEARCH_ROUNDS = 4

/** The request of one round: the client's, with the searches so far and the tools they found. */
export type RoundRequest = Pick<DecodedRequest, "prompt" | "messages" | "options">

/** One upstream call: the events of its answer, in batches as they are decoded. */
export type UpstreamRound = (request: RoundRequest, round: number) => AsyncIterable<readonly StreamEvent[]>

/** What the loop needs: the request as planned (planDeferredTools), its search, the upstream call. */
export interface SearchLoopInput {
  request: RoundRequest
  search: GatewaySearch
  call: UpstreamRound
  /** At most this many upstream calls (default DEFAULT_SEARCH_ROUNDS, at least 1); the last offers no search. */
  rounds?: number
}

/** The id the client sees for a search the upstream asked for with `id`: a server tool's id. */
function searchId(id: string): string {
  return `srvtoolu_${id.replace(/[^a-zA-Z0-9_-]/g, "_")}`
}

/** Runs one search: the best matches for the call's query, as a tool search block. */
function runSearch(search: GatewaySearch, id: string, input: unknown): ToolSearchBlock {
  const query = searchQuery(input)
  const limit = (input as { limit?: unknown } | null)?.limit
  const n = typeof limit === "number" && Number.isFinite(limit) ? limit : undefined
  const matches = query.trim() === "" ? [] : search.index.search(query, n)
  const asked = n === undefined ? { query } : { query, limit: clampLimit(n) }
  return {
    type: "tool_search",
    id: searchId(id),
    name: search.clientName,
    input: asked,
    found: matches.map((m) => m.tool.name),
  }
}

/**
 * The client's answer, in batches: the upstream's events with its search calls taken out and answered, the
 * rounds joined into one answer (one start, one stop, usage added up). A round whose calls were all searches is
 * followed by another; a round that also called a client tool ends the answer with those calls (the client's next
 * request carries the searches back). Errors end the answer as they come.
 */
export async function* searchLoop(input: SearchLoopInput): AsyncGenerator<StreamEvent[]> {
  const rounds = Math.max(1, Math.floor(input.rounds ?? DEFAULT_SEARCH_ROUNDS))
  const { search } = input
  let request = input.request
  /** The usage of the rounds before this one (none in the first). */
  let before: Usage | undefined
  const found = new Set<string>()
  for (let round = 0; round < rounds; round++) {
    const last = round === rounds - 1
    if (last) request = { ...request, prompt: withoutSearch(request.prompt, search) }
    /** The ids of the round's search calls, held back from the client. */
    const searches = new Set<string>()
    const blocks: ToolSearchBlock[] = []
    const acc = new Accumulator({ ts: 0 })
    let calls = 0
    let usage: Usage | undefined
    let stop: Extract<StreamEvent, { type: "stop" }> | undefined
    let failed = false
    for await (const batch of input.call(request, round)) {
      const out: StreamEvent[] = []
      for (const event of batch) {
        acc.push(event)
        switch (event.type) {
          case "start":
            if (round === 0) out.push(event)
            continue
          case "usage": {
            const { type: _, ...now } = event
            usage = now
            out.push({ type: "usage", ...(before ? addUsage(before, now) : now) })
            continue
          }
          case "stop":
            stop = event
            continue
          case "error":
            failed ||= isErrorLevel(event)
            out.push(event)
            continue
          case "tool_call_start":
            if (!last && event.name === search.tool.name) {
              searches.add(event.id)
              continue
            }
            calls++
            out.push(event)
            continue
          case "tool_call_delta":
            if (!searches.has(event.id)) out.push(event)
            continue
          case "tool_call_end":
            if (searches.has(event.id)) {
              const block = runSearch(search, event.id, event.input)
              blocks.push(block)
              const { type: _, ...shown } = block
              out.push({ type: "tool_search", ...shown })
              continue
            }
            out.push(event)
            continue
          default:
            out.push(event)
        }
      }
      if (out.length > 0) yield out
    }
    if (usage) before = before ? addUsage(before, usage) : usage
    // The round ended: go on when every call was a search, else end the answer as the upstream ended it.
    const goOn = blocks.length > 0 && calls === 0 && !failed && stop !== undefined && stop.reason !== "error"
    if (!goOn) {
      // Searches alone left nothing for the client to run: the answer ended.
      if (stop)
        yield [blocks.length > 0 && calls === 0 && stop.reason === "tool_use" ? { type: "stop", reason: "end" } : stop]
      return
    }
    for (const block of blocks) for (const name of block.found) found.add(name)
    request = nextRound(request, acc, blocks, found, search)
  }
}

/** The request of the next round: the answer so far (its searches as tool search blocks), the found tools offered. */
function nextRound(
  request: RoundRequest,
  acc: Accumulator,
  blocks: readonly ToolSearchBlock[],
  found: ReadonlySet<string>,
  search: GatewaySearch,
): RoundRequest {
  const answer = acc.finish().at(-1)!.message
  const byId = new Map(blocks.map((b) => [b.id, b]))
  const content = answer.content.map((b) => (b.type === "tool_use" ? (byId.get(searchId(b.id)) ?? b) : b))
  const message: Message = { id: `search-${request.messages.length}`, role: "assistant", content, ts: 0 }
  // The tools as planDeferredTools lays them out on the client's next request: the client's own, the deferred
  // tools loaded so far in their order, the search tool, so the upstream's prefix stays the same.
  const deferred = new Set(search.index.tools)
  const own = request.prompt.tools.filter((t) => !deferred.has(t) && t !== search.tool)
  const offered = new Set(request.prompt.tools)
  const loaded = search.index.tools.filter((t) => offered.has(t) || found.has(t.name))
  return {
    ...request,
    prompt: { ...request.prompt, tools: [...own, ...loaded, search.tool] },
    messages: [...request.messages, message],
  }
}

/** The prompt without the search tool: the last round must answer with what it has. */
function withoutSearch(prompt: RoundRequest["prompt"], search: GatewaySearch): RoundRequest["prompt"] {
  return { ...prompt, tools: prompt.tools.filter((t) => t !== search.tool) }
}
