/**
 * The set-up the translate-mode matrix tests share: one replay server speaking every wire format, one gateway
 * with a translating route per upstream format (`to-{format}`), and the official SDK clients pointed at it.
 */
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import OpenAI from "openai"
import type { BuiltInWireFormat } from "../../models/types.js"
import type { ReplayScriptInput } from "../../replay/script.js"
import type { ReplayServer } from "../../replay/server.js"
import { startReplayServer } from "../../replay/server.js"
import { scriptOf } from "../../replay/test-helpers/fixtures.js"
import { type Gateway, startGateway } from "../server.js"

/** The upstream behind each route: provider, the model the route names, the path of its base URL. */
export const UPSTREAMS: Record<BuiltInWireFormat, { provider: string; model: string; path: string }> = {
  anthropic: { provider: "anthropic", model: "claude-sonnet-4-5", path: "" },
  "openai-chat": { provider: "openai", model: "gpt-4.1", path: "/v1" },
  "openai-responses": { provider: "openai", model: "gpt-5", path: "/v1" },
  gemini: { provider: "gemini", model: "gemini-2.5-flash", path: "" },
  deepseek: { provider: "deepseek", model: "deepseek-chat", path: "" },
}
/** Every upstream wire format. */
export const FORMATS = Object.keys(UPSTREAMS) as BuiltInWireFormat[]
/** The client APIs the official SDKs speak. */
export const CLIENTS = ["anthropic", "openai-chat", "openai-responses", "gemini"] as const
/** One client API. */
export type Client = (typeof CLIENTS)[number]

/** The format the replay server saw for an upstream (DeepSeek speaks OpenAI Chat). */
export const spokenFormat = (upstream: BuiltInWireFormat) => (upstream === "deepseek" ? "openai-chat" : upstream)

/** A replay server and a gateway routing `to-{format}` to it in that format. */
export interface Matrix {
  replay: ReplayServer
  gateway: Gateway
  close(): Promise<void>
}

/** Starts the replay server with `turns` and a gateway in front of it. */
export async function startMatrix(turns: ReplayScriptInput["turns"]): Promise<Matrix> {
  const replay = await startReplayServer({ script: scriptOf(...turns) })
  const gateway = await startGateway({
    config: {
      port: 0,
      upstreams: Object.fromEntries(
        FORMATS.map((f) => [
          f,
          { provider: UPSTREAMS[f].provider, format: f, baseUrl: `${replay.url}${UPSTREAMS[f].path}`, keyEnv: "K" },
        ]),
      ),
      routes: FORMATS.map((f) => ({ match: `to-${f}`, upstream: f, model: UPSTREAMS[f].model, mode: "translate" })),
    },
    env: { K: "sk-fake-matrix-key-000" },
  })
  return {
    replay,
    gateway,
    async close() {
      await gateway.close(0)
      await replay.close()
    },
  }
}

/** The official SDK clients of a gateway, retries off. */
export function sdkClients(gateway: Gateway) {
  return {
    anthropic: new Anthropic({ apiKey: "client", baseURL: gateway.urls.anthropic, maxRetries: 0 }),
    openai: new OpenAI({ apiKey: "client", baseURL: gateway.urls.openai, maxRetries: 0 }),
    gemini: new GoogleGenAI({ apiKey: "client", httpOptions: { baseUrl: gateway.urls.gemini } }),
  }
}

/** The requests the replay server received since `before`, after `run`. */
export async function requestsDuring<T>(
  replay: ReplayServer,
  run: () => Promise<T>,
): Promise<{ result: T; seen: ReplayServer["requests"] }> {
  const before = replay.requests.length
  const result = await run()
  return { result, seen: replay.requests.slice(before) }
}
