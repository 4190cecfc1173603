// The 200-turn cache replay bench/gateway and bench/fleet share: bench/fit's generated history sent turn by turn by
// an Anthropic client (no cache markers of its own) to a gateway route, against the replay server's cache simulation
// (15 s between turns on its clock), and the share of input tokens billed as cache reads.

import type { ReplayServer } from "../src/replay/server.js"
import { generateHistory } from "../test/fixtures/history/generate.js"
import { historyBody } from "./gateway-bodies.js"
import { post } from "./gateway-procs.js"

const KEY = { "x-api-key": "sk-fake", "anthropic-version": "2023-06-01" }

/** Replays 200 turns through `model`'s route at `gatewayUrl`; the share of input tokens read from the cache, in %. */
export async function cacheReplay(
  gatewayUrl: string,
  model: string,
  clock: { now: number; base: number },
  simulated: ReplayServer,
) {
  const history = generateHistory({ messages: 400, seed: 7, fileLines: 170 })
  let input = 0
  let read = 0
  let write = 0
  for (let k = 1; k <= history.length; k += 2) {
    clock.now = clock.base + (k - 1) * 7_500 // 15 s between turns
    const body = historyBody("anthropic", history.slice(0, k), "claude-sonnet-4-5", model)
    const reply = await post(`${gatewayUrl}/v1/messages`, JSON.stringify(body), KEY)
    if (reply.status !== 200)
      throw new Error(`cache replay turn ${(k + 1) / 2}: ${reply.status} ${reply.body.slice(0, 300)}`)
    // The usage of the whole answer: the last one in the stream (message_delta carries the final figures).
    const usage = [...reply.body.matchAll(/"usage":(\{[^}]*\})/g)].at(-1)?.[1]
    if (!usage) throw new Error(`cache replay turn ${(k + 1) / 2}: the answer has no usage`)
    const u = JSON.parse(usage) as Record<string, number>
    input += u.input_tokens ?? 0
    read += u.cache_read_input_tokens ?? 0
    write += u.cache_creation_input_tokens ?? 0
  }
  if (simulated.divergences.length > 0) throw new Error("the cache replay diverged")
  // The next replay starts an hour later: every entry of this one has expired.
  clock.base = clock.now + 3_600_000
  return { share: (100 * read) / (input + read + write), billed: input + read + write }
}
