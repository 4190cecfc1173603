/**
 * What an upstream that cannot defer tools is offered of a client's deferred tools (`defer_loading`): every one
 * (`send-all`), or (`search`) the ones the conversation already loaded, plus, when the client asked for a tool
 * search run for it (Anthropic's tool search tool), promptline's search tool, which the gateway answers itself
 * (loop.ts). Loaded tools are read from the history alone: the tools a tool search found, the tools a tool result
 * references (a client that searches itself, as Claude Code does), and the deferred tools the model called.
 */
import type { DeferredToolsMode } from "../../config/gateway.js"
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { Message } from "../../history/message.js"
import { deferredSearchDescription } from "../../notices.js"
import { ANTHROPIC_REGEX_TOOL_SEARCH, ANTHROPIC_TOOL_SEARCH } from "../../providers/anthropic/tools.js"
import { isPlaceholderTool } from "../../providers/carried.js"
import type { DecodedRequest, PromptInput } from "../../providers/types.js"
import { DeferredTools, SEARCH_TOOLS_NAME, searchToolsTool } from "../../tools/search/index.js"
import type { EnabledTool } from "../../tools/spec.js"

export type { DeferredToolsMode }

/** The default: deferred tools stay deferred, found by search (see docs/gateway.md). */
export const DEFAULT_DEFERRED_TOOLS_MODE: DeferredToolsMode = "search"

/** The gateway's search over a request's deferred tools. */
export interface GatewaySearch {
  /** The deferred tools that can be found (placeholders never are), indexed. */
  index: DeferredTools
  /** The name the client's own API gives the search (Anthropic: `tool_search_tool_bm25` or `tool_search_tool_regex`). */
  clientName: string
  /** The search tool the upstream is offered. */
  tool: EnabledTool
}

/** The request as an upstream without tool search gets it, and the search the gateway runs, when any. */
export interface DeferredToolsPlan {
  /** The client's request with the deferred tools resolved: loaded ones among the tools, none left deferred. */
  request: DecodedRequest
  /** Present when the gateway answers the upstream's searches itself. */
  search?: GatewaySearch
  /** The names of the deferred tools offered from the start (loaded earlier, or all with `send-all`). */
  loaded: string[]
  /**
   * The client's JSON paths of the deferred tools no model will be offered (placeholders; every tool when the
   * client asked for a server-side search the gateway cannot offer, after an entry that says why), to be named as
   * dropped.
   */
  dropped: string[]
  diagnostics: Diagnostic[]
}

/** The names the history loads: found by tool searches, referenced by tool results, or called. */
function loadedNames(messages: readonly Message[]): Set<string> {
  const out = new Set<string>()
  for (const message of messages)
    for (const block of message.content) {
      if (block.type === "tool_search") for (const name of block.found) out.add(name)
      else if (block.type === "tool_result") for (const name of block.references ?? []) out.add(name)
      else if (block.type === "tool_use") out.add(block.name)
    }
  return out
}

/**
 * The search tool offered to the upstream: promptline's search tool's name and parameters, with a description
 * that says the tools found are loaded (the upstream calls them by name; there is no call tool here).
 */
function gatewaySearchTool(searchable: readonly EnabledTool[]): EnabledTool {
  return { ...searchToolsTool(searchable), description: deferredSearchDescription(searchable.length) }
}

/** The client's search tool name for the search it asked the API to run (`nativeToolSearch`), when it asked. */
function clientSearchName(request: DecodedRequest): string | undefined {
  const asked = request.options.nativeToolSearch
  if (asked === true || asked === "bm25") return ANTHROPIC_TOOL_SEARCH.name
  if (asked === "regex") return ANTHROPIC_REGEX_TOOL_SEARCH.name
  return undefined
}

/**
 * Resolves a request's deferred tools for an upstream that cannot defer them. A request without deferred tools
 * gives undefined: it goes as it came.
 */
export function planDeferredTools(request: DecodedRequest, mode: DeferredToolsMode): DeferredToolsPlan | undefined {
  const deferred = request.prompt.deferredTools ?? []
  if (deferred.length === 0) return undefined
  const usable = deferred.filter((t) => !isPlaceholderTool(t))
  const taken = new Set(request.prompt.tools.map((t) => t.name))
  const loaded =
    mode === "send-all"
      ? usable.filter((t) => !taken.has(t.name))
      : (() => {
          const names = loadedNames(request.messages)
          return usable.filter((t) => names.has(t.name) && !taken.has(t.name))
        })()
  const diagnostics: Diagnostic[] = []
  const clientName = mode === "search" ? clientSearchName(request) : undefined
  let search: GatewaySearch | undefined
  /** The client's search tool the gateway cannot stand in for: its path (one search tool's, when the decoder read one), and why. */
  let searchOff: { path: string; why: string } | undefined
  if (clientName !== undefined && usable.length > 0) {
    if (taken.has(SEARCH_TOOLS_NAME)) {
      const why = `the gateway's tool search is off: the client has a tool named "${SEARCH_TOOLS_NAME}"`
      diagnostics.push(diagnostic("warning", "tool-search-name-taken", why))
      const asked = request.sources.nativeToolSearch
      searchOff = { path: asked?.length === 1 ? asked[0]! : "tool search", why }
    } else search = { index: new DeferredTools(usable), clientName, tool: gatewaySearchTool(usable) }
  }
  const tools = [...request.prompt.tools, ...loaded, ...(search ? [search.tool] : [])]
  const prompt: PromptInput = { ...request.prompt, tools }
  delete prompt.deferredTools
  // Left out: placeholders, and the tools no search can reach (the client asked for a server-side search the
  // gateway cannot offer). The rest reach the model, now or once found.
  const unreachable = clientName !== undefined && search === undefined
  const left = deferred.filter((t) => isPlaceholderTool(t) || (unreachable && !loaded.includes(t)))
  const { nativeToolSearch: _asked, ...options } = request.options
  const { deferredTools: paths, nativeToolSearch: _searchPath, ...sources } = request.sources
  return {
    request: { ...request, prompt, options, sources },
    ...(search ? { search } : {}),
    loaded: loaded.map((t) => t.name),
    // The search the client asked for is dropped too when the gateway cannot run it, named with why (the header,
    // the record and the log's JSON line show the dropped list), as the diagnostic says.
    dropped: [...(searchOff ? [`${searchOff.path} (${searchOff.why})`] : []), ...leftPaths(deferred, left, paths)],
    diagnostics,
  }
}

/**
 * The client's paths of the deferred tools left out, when the decoder listed one path per deferred tool in order;
 * else all of them, or the part's name when there are none.
 */
function leftPaths(
  deferred: readonly EnabledTool[],
  left: readonly EnabledTool[],
  paths: readonly string[] | undefined,
): string[] {
  if (left.length === 0) return []
  if (paths?.length === deferred.length) return deferred.flatMap((t, i) => (left.includes(t) ? [paths[i]!] : []))
  return paths ? [...paths] : ["deferredTools"]
}
