/**
 * `inspect --exact`: the built request (system prompt, tools, the conversation) counted by the provider's own
 * counting endpoint, beside the context manager's count of the same request, part by part when a part can be
 * told apart by counting the request without it. No key, a format without an endpoint, or a failed request is
 * a reason returned as data; the estimate stands in.
 */

import type { Calibration, ContextManager } from "../history/context-manager.js"
import type { Message, TextBlock } from "../history/message.js"
import { promptCount } from "../history/request-count.js"
import type { ExactCount, ExactPart } from "../inspect/report-types.js"
import type { WireFormat } from "../models/types.js"
import type { BuiltPrompt } from "../prompt/builder.js"
import { countingRequest, countTokens, hasCountingEndpoint } from "../providers/count.js"
import { encodeRequest } from "../providers/encode.js"
import { type Endpoint, endpointFor, MissingKeyError } from "../providers/endpoints.js"
import type { PromptInput } from "../providers/types.js"

/** What an exact count needs: the build, the conversation, the manager that counts, and where the provider is. */
export interface ExactCountInput {
  built: BuiltPrompt
  history?: readonly Message[]
  manager: ContextManager
  env: Readonly<Record<string, string | undefined>>
  /** Overrides the provider's base URL (a proxy, the replay server). */
  baseUrl?: string
  /** Why the provider may not be asked (a project config chose a server on this machine); the estimate stands in. */
  refused?: string
}

/** The exact count and, when the endpoint answered, the calibration it gives the manager for the model. */
export interface ExactCountResult {
  exact: ExactCount
  calibration?: Calibration
}

/** The conversation as the agent holds it: the context message at the start, and never empty (providers need one message). */
function conversation(built: BuiltPrompt, history: readonly Message[]): { messages: Message[]; probe: boolean } {
  const messages = [...history]
  if (built.contextMessage) {
    const block: TextBlock = { type: "text", text: built.contextMessage }
    const first = messages.findIndex((m) => m.role === "user")
    const callBefore = messages.slice(0, Math.max(0, first)).some((m) => m.content.some((b) => b.type === "tool_use"))
    if (first === -1 || callBefore) messages.unshift({ id: "context", role: "user", ts: 0, content: [block] })
    else messages[first] = { ...messages[first]!, content: [block, ...messages[first]!.content] }
  }
  if (messages.length > 0) return { messages, probe: false }
  return { messages: [{ id: "probe", role: "user", ts: 0, content: [{ type: "text", text: "." }] }], probe: true }
}

/** Counts the build's request with the provider's endpoint and with the manager; never throws for a provider's failure. */
export async function exactCount(input: ExactCountInput): Promise<ExactCountResult> {
  const { built, manager } = input
  const format: WireFormat = built.wireFormat
  const { messages, probe } = conversation(built, input.history ?? [])
  const { system, tools } = promptCount(built)
  const measured = manager.measure(messages, { model: built.model, system, tools, wireFormat: format })
  const estimated = measured.tokens.local
  const unavailable = (code: string, reason: string): ExactCountResult => ({
    exact: { status: "unavailable", code, reason: `${reason}; the figures are our estimate`, estimated },
  })
  if (input.refused !== undefined) return unavailable("config-provider-untrusted", input.refused)
  if (!hasCountingEndpoint(format))
    return unavailable("count-unsupported", `the ${format} wire format has no token-counting endpoint`)
  let endpoint: Endpoint
  try {
    endpoint = endpointFor({
      provider: built.model.provider,
      format,
      env: input.env,
      ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
    })
  } catch (error) {
    if (error instanceof MissingKeyError) return unavailable("count-no-key", error.message.replace(/\.$/, ""))
    return unavailable("count-no-endpoint", (error as Error).message.replace(/\.$/, ""))
  }
  const prompt: PromptInput = {
    text: built.text,
    tools: built.tools,
    deferredTools: built.deferredTools,
    toolCalling: built.toolCalling,
  }
  const url = countingRequest(endpoint, format, built.model.id, {}).url
  let requests = 0
  const count = async (p: PromptInput): Promise<number> => {
    requests++
    const encoded = encodeRequest(format, { prompt: p, messages, model: built.model, options: { stream: false } })
    return countTokens(endpoint, { format, model: built.model.id, body: encoded.body as Record<string, unknown> })
  }
  let exact: number
  const parts: ExactPart[] = []
  try {
    exact = await count(prompt)
    const toolsShare = tools.length > 0 ? exact - (await count({ ...prompt, tools: [], deferredTools: [] })) : 0
    const systemShare = built.text !== "" ? exact - (await count({ ...prompt, text: "" })) : 0
    if (requests > 1) {
      parts.push({ id: "system", exact: systemShare, estimated: measured.tokens.system })
      if (tools.length > 0) parts.push({ id: "tools", exact: toolsShare, estimated: measured.tokens.tools })
      parts.push({ id: "messages", exact: exact - toolsShare - systemShare, estimated: measured.tokens.messages })
    }
  } catch (error) {
    return unavailable("count-failed", `the counting endpoint ${url} failed: ${(error as Error).message}`)
  }
  const calibration = manager.observe(measured, exact)
  return {
    exact: {
      status: "counted",
      format,
      endpoint: url,
      keySource: endpoint.keySource,
      exact,
      estimated,
      ratio: estimated > 0 ? exact / estimated : 0,
      parts,
      requests,
      ...(probe ? { probeMessage: true } : {}),
    },
    ...(calibration ? { calibration } : {}),
  }
}
