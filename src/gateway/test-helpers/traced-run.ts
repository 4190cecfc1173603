/**
 * A real gateway run that leaves a trace folder behind: the replay server as two upstreams (`main` speaks Anthropic,
 * `side` OpenAI Chat), a gateway tracing into a folder, and requests sent over HTTP on a simulated clock. What
 * `promptline usage` and `traces` read in their tests.
 */
import { TraceStore } from "../../cache/trace-store.js"
import { TokenCounter } from "../../history/tokens.js"
import type { ScriptUsage } from "../../replay/script.js"
import { startReplayServer } from "../../replay/server.js"
import { scriptOf } from "../../replay/test-helpers/fixtures.js"
import type { GatewayRecord } from "../record.js"
import { startGateway } from "../server.js"
import { gatewayTracing } from "../traces.js"

/** One request of a run: when, which client API, which model, the answer's usage (or a 429 first). */
export interface RunRequest {
  at: number
  client: "anthropic" | "openai-chat"
  model: string
  conversation: string
  usage: ScriptUsage
  /** The upstream answers 429 once before answering this request: one failed request more in the trace. */
  rateLimitedFirst?: boolean
}

/** The client's body and path for a request. */
function httpOf(r: RunRequest): { path: string; body: unknown } {
  const messages = [{ role: "user", content: `question for ${r.conversation}` }]
  return r.client === "anthropic"
    ? { path: "/v1/messages", body: { model: r.model, max_tokens: 64, messages } }
    : { path: "/v1/chat/completions", body: { model: r.model, messages } }
}

/** Sends `requests` through a gateway that traces into `dir`; returns the gateway's records once every line is written. */
export async function tracedGatewayRun(dir: string, requests: readonly RunRequest[]): Promise<GatewayRecord[]> {
  const replay = await startReplayServer({
    script: scriptOf(
      ...requests.map((r) => ({
        text: "ok",
        usage: r.usage,
        ...(r.rateLimitedFirst ? { faults: [{ kind: "rate-limit" as const, retryAfter: 0 }] } : {}),
      })),
    ),
  })
  const store = new TraceStore(dir, { counter: await TokenCounter.create() })
  const tracing = gatewayTracing(store, (error) => {
    throw error
  })
  const written: Promise<void>[] = []
  const records: GatewayRecord[] = []
  let now = 0
  const gateway = await startGateway({
    config: {
      port: 0,
      upstreams: {
        main: { provider: "anthropic", format: "anthropic", baseUrl: replay.url, keyEnv: "K" },
        side: { provider: "openai", format: "openai-chat", baseUrl: `${replay.url}/v1`, keyEnv: "K" },
      },
      routes: [
        { match: "gpt-*", upstream: "side" },
        { match: "*", upstream: "main" },
      ],
    },
    env: { K: "sk-fake-usage-key-0000" },
    clock: () => now,
    answerHeaders: tracing.answerHeaders,
    onRequest: (record) => {
      records.push(record)
      written.push(tracing.onRequest(record))
    },
  })
  try {
    for (const r of requests) {
      const { path, body } = httpOf(r)
      for (let attempt = 0; attempt < (r.rateLimitedFirst ? 2 : 1); attempt++) {
        now = r.at + attempt
        const base = r.client === "anthropic" ? gateway.urls.anthropic : gateway.url
        const answer = await fetch(`${base}${path}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": "client-key",
            "anthropic-version": "2023-06-01",
            "x-promptline-conversation": r.conversation,
          },
          body: JSON.stringify(body),
        })
        await answer.text()
      }
    }
    await Promise.all(written)
  } finally {
    await gateway.close(0)
    await replay.close()
  }
  return records
}
