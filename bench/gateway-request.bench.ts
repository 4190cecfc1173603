// bench/gateway-request: the gateway's own work on one large request, in this process: a Claude Code-sized body
// (bench/fit's generated history, 200 messages, about 566 KB of JSON). (1) The depth check every request's body
// goes through before anything reads it, against JSON.parse of the same body (which follows it on the same path);
// (2) the redaction every record goes through, with the body received and sent unchanged, against serializing that
// record. Both in the same run.

import { MAX_JSON_DEPTH, nestsDeeperThan } from "../src/json.js"
import { redactDeep } from "../src/redact.js"
import { generateHistory } from "../test/fixtures/history/generate.js"
import { historyBody, sameFormatRecord } from "./gateway-bodies.js"
import { type Benchmark, type Metric, quantile, sample } from "./harness.js"

/** The median time of one call of `work`, in µs (each sample runs it 20 times). */
async function perCall(work: () => unknown): Promise<number> {
  return quantile(await sample(() => Array.from({ length: 20 }, work), 25, 5), 0.5) / 20
}

const gatewayRequest: Benchmark = {
  name: "gateway-request",
  async run(): Promise<Metric[]> {
    const body = historyBody(
      "anthropic",
      generateHistory({ messages: 200, seed: 7, fileLines: 70 }),
      "claude-sonnet-4-5",
      "claude-sonnet-4-5",
    )
    const raw = Buffer.from(JSON.stringify(body))
    const size = `${Math.round(raw.length / 1024)} KB`
    const depth = await perCall(() => nestsDeeperThan(raw, MAX_JSON_DEPTH))
    const parse = await perCall(() => JSON.parse(raw.toString("utf8")))
    const record = sameFormatRecord(body)
    const secrets = ["sk-ant-client-key-0123456789", "gateway-token-abcdefgh"]
    const redacted = await perCall(() => redactDeep(record, secrets))
    const serialized = await perCall(() => JSON.stringify(record))
    return [
      {
        name: `depth check of a 200-message request body (${size}), before anything reads it`,
        unit: "µs",
        ours: depth,
        peer: { name: "JSON.parse of the same body", value: parse },
        better: "lower",
      },
      {
        name: `record redaction, the same request received and sent unchanged, per record`,
        unit: "µs",
        ours: redacted,
        peer: { name: "JSON.stringify of the same record", value: serialized },
        better: "lower",
      },
    ]
  },
}

export default gatewayRequest
