/** Writes a scripted conversation to a trace folder: hits, a tool reorder at request 4, an expiry before request 7. */
import type { TokenCounter } from "../../history/tokens.js"
import type { BuiltInWireFormat } from "../../models/types.js"
import { TraceStore } from "../trace-store.js"
import { defaultPrompt, encoded, scriptHistory } from "./script.js"

/** Records `requests` requests in `dir`; returns the conversation's trace file. */
export async function writeScriptedTrace(
  dir: string,
  counter: TokenCounter,
  format: BuiltInWireFormat = "anthropic",
  requests = 8,
): Promise<string> {
  const store = new TraceStore(dir, { counter })
  const base = defaultPrompt()
  const history = scriptHistory(2 * requests + 1, 11)
  let key = ""
  for (let k = 1; k <= requests; k++) {
    const tools = k >= 4 ? [base.tools[1]!, base.tools[0]!, ...base.tools.slice(2)] : base.tools
    const at = 1_800_000_000_000 + k * 15_000 + (k >= 7 ? 3_600_000 : 0)
    const sent = encoded(format, { ...base, tools }, history.slice(0, 2 * k - 1), at)
    const record = await store.record({
      at,
      durationMs: 1200,
      clientApi: format,
      upstream: { format, provider: "example" },
      model: sent.model!,
      sent: { body: sent.body },
    })
    key = record.conversation
  }
  return `${dir}/conversations/${key}.jsonl`
}
