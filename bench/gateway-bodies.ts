// Request bodies bench/gateway sends: a small Anthropic request, and the generated agent history of bench/fit
// (test/fixtures/history) encoded as an Anthropic client and as an OpenAI Chat client would send it; and the record
// of a finished request, for the benchmarks of what the gateway does with each record.

import type { GatewayRecord } from "../src/gateway/record.js"
import type { Message } from "../src/history/message.js"
import { resolveModel } from "../src/models/resolve.js"
import { formatModule } from "../src/providers/formats.js"
import type { EncodeOptions } from "../src/providers/types.js"
import type { EnabledTool } from "../src/tools/spec.js"
import { SYSTEM } from "./fit.bench.js"

/** The tools the generated history calls, as a client declares them. */
export const TOOLS: EnabledTool[] = [
  ["read_file", "read", { path: "string", start_line: "integer", end_line: "integer" }, ["path"]],
  ["execute_command", "execute", { command: "string" }, ["command"]],
  ["replace_in_file", "write", { path: "string", diff: "string" }, ["path", "diff"]],
  ["write_to_file", "write", { path: "string", content: "string" }, ["path", "content"]],
  ["search_files", "read", { path: "string", regex: "string" }, ["path", "regex"]],
].map(([name, kind, props, required]) => ({
  id: name as string,
  kind: kind as EnabledTool["kind"],
  name: name as string,
  description: `The ${name as string} tool.`,
  snippet: "",
  guidelines: [],
  parameters: {
    type: "object" as const,
    properties: Object.fromEntries(Object.entries(props as Record<string, string>).map(([k, t]) => [k, { type: t }])),
    required: required as string[],
  },
  examples: {},
}))

/** A small streamed Anthropic request (one user message). */
export function smallAnthropic(model: string): string {
  return JSON.stringify({
    model,
    max_tokens: 256,
    stream: true,
    system: "You are a coding agent.",
    messages: [{ role: "user", content: "List the files in src and say which one parses the config." }],
  })
}

/** `messages` encoded as `format`'s client sends them (streamed, no cache markers), with the model named `as`. */
export function historyBody(
  format: "anthropic" | "openai-chat",
  messages: readonly Message[],
  catalogModel: string,
  as: string,
  options: EncodeOptions = {},
): Record<string, unknown> {
  const model = resolveModel(catalogModel).model
  const { body } = formatModule(format).encode({
    prompt: { text: SYSTEM, tools: TOOLS },
    messages,
    model,
    options: { stream: true, maxTokens: 4096, cache: false, ...options },
  })
  const out = body as Record<string, unknown>
  out.model = as
  return out
}

/** The record of a finished same-format Anthropic request whose body (received and sent unchanged) is `body`. */
export function sameFormatRecord(body: unknown = {}): GatewayRecord {
  return {
    seq: 0,
    startedAt: Date.UTC(2026, 10, 1),
    latencyMs: 800,
    clientFormat: "anthropic",
    transport: "http",
    model: "claude-sonnet-4-5",
    upstream: { name: "main", provider: "anthropic", format: "anthropic", model: "claude-sonnet-4-5" },
    mode: "same-format",
    status: 200,
    bytes: 2048,
    usage: { input: 1200, output: 300, cacheRead: 20_000, cacheWrite: 500 },
    dropped: [],
    conversationKey: "k",
    received: { url: "/v1/messages", headers: {}, body },
    sent: { url: "/v1/messages", headers: {}, body },
  }
}
