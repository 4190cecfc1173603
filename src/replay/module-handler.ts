/**
 * The replay handler of a registered wire format with a shape of its own, made from its module alone: requests
 * are read with `decodeRequest`, answers written with `createStreamEncoder` and `encodeResponse`, errors with
 * `encodeError`. The built-in shapes keep their own handlers (anthropic.ts, openai-chat.ts, ...), which check
 * requests as their APIs do and know each API's reasoning and response-id rules.
 */
import type { Block } from "../history/message.js"
import type { WireFormatModule } from "../providers/types.js"
import { FAILURE_KINDS, type FormatHandler, type RouteInfo, type TurnRender } from "./format.js"
import { turnEvents } from "./turn-events.js"
import { lastTurnOf, type RequestView, type ToolResultView, toolResultView } from "./view.js"

/** The text of a tool result's content, as replay compares it. */
function resultText(content: string | Block[]): string {
  if (typeof content === "string") return content
  return content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n")
}

/** A request body read by the module's decoder, reduced to what replay needs. */
function viewOf(
  module: WireFormatModule,
  body: Record<string, unknown>,
  names: ReadonlyMap<string, string>,
  route: RouteInfo,
): RequestView {
  const decoded = module.decodeRequest(body, route)
  const known = new Map(names)
  for (const m of decoded.messages) for (const b of m.content) if (b.type === "tool_use") known.set(b.id, b.name)
  const lastAssistant = decoded.messages.map((m) => m.role).lastIndexOf("assistant")
  const texts: string[] = []
  const toolResults: ToolResultView[] = []
  for (const m of decoded.messages.slice(lastAssistant + 1))
    for (const b of m.content) {
      if (b.type === "text") texts.push(b.text)
      if (b.type === "tool_result")
        toolResults.push(toolResultView(resultText(b.content), b.toolUseId, known, b.isError === true))
    }
  const tools = decoded.prompt.tools.map((t) => t.name)
  const visible = decoded.options.thinking !== undefined && decoded.options.thinking !== false
  return {
    format: module.format,
    model: decoded.model,
    stream: route.stream ?? decoded.options.stream === true,
    system: decoded.prompt.text,
    tools,
    dialect: tools.length > 0 ? "native" : "xml",
    lastTurn: lastTurnOf(texts, toolResults),
    reasoning: { visible, summary: false, encrypted: false },
  }
}

/** The stream events of a turn and the options its answer is written with. */
function turnStream(module: WireFormatModule, { turn, view, created, chunkSize }: TurnRender) {
  const options = { model: view.model, id: `${module.format}-replay-${turn.index}`, created }
  return { options, events: turnEvents(turn, { ...options, chunkSize, thinking: view.reasoning.visible }) }
}

/**
 * A replay handler for a format from its module. Its stream payloads are the text the module's stream encoder
 * writes for each event, so `sse` joins them as they are.
 */
export function moduleHandler(module: WireFormatModule): FormatHandler {
  return {
    format: module.format,
    callIdPrefix: "call_replay_",
    check(body) {
      try {
        module.decodeRequest(body)
        return []
      } catch (error) {
        return [(error as Error).message]
      }
    },
    unknownFields(body) {
      // What the decoder does not model at the top of the body (`metadata`, not `turns[2].x`); none when it cannot read it.
      try {
        return module.decodeRequest(body).unmodeled.filter((path) => /^[\w-]+$/.test(path))
      } catch {
        return []
      }
    },
    view: (body, names, route) => viewOf(module, body, names, route),
    events(render) {
      const { options, events } = turnStream(module, render)
      const encoder = module.createStreamEncoder(options)
      return [...events.map((e) => encoder.push(e)), encoder.end()].filter((text) => text !== "")
    },
    sse: (payloads) => payloads.map(String),
    complete(render) {
      const { options, events } = turnStream(module, render)
      return module.encodeResponse(events, options)
    },
    error(failure) {
      return module.encodeError({
        kind: FAILURE_KINDS[failure.kind],
        message: failure.message,
        ...(failure.kind === "rate-limit" ? { retryAfterMs: (failure.retryAfter ?? 1) * 1000 } : {}),
        ...(failure.param !== undefined ? { param: failure.param } : {}),
      })
    },
  }
}
