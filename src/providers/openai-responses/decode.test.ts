import { readFileSync } from "node:fs"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Accumulator } from "../accumulate.js"
import { decodePayloadLines, StreamDecoder } from "../decode.js"
import type { StreamEvent } from "../stream.js"
import { patchEnvelope, responsesResponseEvents, responsesUsage } from "./decode.js"

const recorded = new URL("../../../test/fixtures/streams/openai-responses/", import.meta.url)
const handWritten = new URL("../../../test/fixtures/providers/streams/", import.meta.url)

function assembleAll(events: StreamEvent[]) {
  const acc = new Accumulator({ ts: 3, model: "gpt-5" })
  for (const e of events) acc.push(e)
  return acc.finish()
}

const lines = (file: string) => readFileSync(new URL(file, recorded), "utf8")

describe("OpenAI Responses decoder", () => {
  it("keeps a reasoning item's id and complete encrypted content on its thinking block", () => {
    const text = lines("openai-reasoning-encrypted-content.1.chunks.txt")
    const done = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; item?: { type: string; encrypted_content?: string; id: string } })
      .find((p) => p.type === "response.output_item.done" && p.item?.type === "reasoning")!.item!
    const [first] = assembleAll(decodePayloadLines("openai-responses", text).events)
    const thinking = first!.message.content[0]
    expect(thinking).toMatchObject({ type: "thinking", id: done.id, signature: done.encrypted_content, model: "gpt-5" })
    // The added event carries a shorter, incomplete encrypted_content; the done one wins.
    expect((thinking as { signature: string }).signature.length).toBeGreaterThan(100)
    expect((thinking as { text: string }).text.startsWith("**Calculating step-by-step using calculator**")).toBe(true)
  })

  it("splits a recording of several responses into several assembled responses", () => {
    const responses = assembleAll(
      decodePayloadLines("openai-responses", lines("openai-reasoning-encrypted-content.1.chunks.txt")).events,
    )
    expect(responses.map((r) => r.stopReason)).toEqual(["tool_use", "tool_use", "tool_use", "end"])
    expect(responses.map((r) => r.message.id)).toEqual([
      "resp_01830d662ab3856501693c321345c88190b0de00f3b9975691",
      "resp_01830d662ab3856501693c3215903881909b710d150ff65014",
      "resp_01830d662ab3856501693c3216bef88190bf0e034cff24137b",
      "resp_01830d662ab3856501693c3217ba4c8190a3ddf6c839d4f12a",
    ])
    expect(responses[3]!.message.content).toEqual([{ type: "text", text: "The final result is **570**." }])
  })

  it("fills text the deltas missed from the final text events", () => {
    const [response] = assembleAll(decodePayloadLines("openai-responses", lines("openai-phase.1.chunks.txt")).events)
    expect(response!.message.content).toHaveLength(2)
    expect(response!.message.content[0]).toEqual({
      type: "text",
      text: "Got it — I’ll quickly check reliable, up-to-date sources for AI headlines from **today (February 25, 2026)** and then summarize the key items with links.",
    })
    expect(response!.usage).toEqual({ input: 4040, output: 463, cacheRead: 3072, cacheWrite: 0, reasoning: 64 })
  })

  it("expands the multi_tool_use.parallel wrapper into the calls it bundles", () => {
    const { events } = decodePayloadLines("openai-responses", lines("parallel-tool-call-wrapper.1.chunks.txt"))
    const starts = events.filter((e) => e.type === "tool_call_start")
    expect(starts).toEqual([
      { type: "tool_call_start", id: "call_parallel_0", name: "weather" },
      { type: "tool_call_start", id: "call_parallel_1", name: "cityAttractions" },
    ])
  })

  it("reports the error event and the failed response once", () => {
    const { events } = decodePayloadLines("openai-responses", lines("openai-error.1.chunks.txt"))
    expect(events.filter((e) => e.type === "error")).toHaveLength(1)
    expect(events[events.length - 1]).toEqual({ type: "stop", reason: "error", raw: "failed" })
  })

  it("stops with length on an incomplete response and joins summary parts with a blank line", () => {
    const decoder = new StreamDecoder("openai-responses")
    const events: StreamEvent[] = []
    decoder.feed(readFileSync(new URL("openai-responses-incomplete.sse", handWritten)), events)
    decoder.end(events)
    const [response] = assembleAll(events)
    expect(response!.stopReason).toBe("length")
    expect(response!.rawStopReason).toBe("max_output_tokens")
    expect(response!.message.content).toEqual([
      {
        type: "thinking",
        text: "First part.\n\nSecond part.",
        signature: "gAAAAB-hand-written",
        id: "rs_hand_1",
        model: "gpt-5",
      },
      { type: "text", text: "The answer is" },
    ])
    expect(response!.usage).toEqual({ input: 100, output: 64, cacheRead: 400, cacheWrite: 0, reasoning: 60 })
  })

  it("reports a stream cut before response.completed as truncated", () => {
    const text = lines("openai-custom-tool.1.chunks.txt").split("\n").slice(0, 5).join("\n")
    const { events } = decodePayloadLines("openai-responses", text)
    expect(events.filter((e) => e.type === "error").map((e) => (e as { kind?: string }).kind)).toEqual([
      "partial-call",
      "truncated",
    ])
  })

  it("decodes a non-streamed response body", () => {
    const body = {
      id: "resp_1",
      object: "response",
      status: "completed",
      model: "gpt-5",
      output: [
        {
          id: "rs_1",
          type: "reasoning",
          summary: [{ type: "summary_text", text: "Think." }],
          encrypted_content: "enc",
        },
        {
          id: "msg_1",
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "Calling.", annotations: [] }],
        },
        { id: "fc_1", type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"x"}' },
      ],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 4 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 2 },
      },
    }
    const [response] = assembleAll(responsesResponseEvents(body))
    expect(response!.message.content).toEqual([
      { type: "thinking", text: "Think.", signature: "enc", id: "rs_1", model: "gpt-5" },
      { type: "text", text: "Calling." },
      { type: "tool_use", id: "call_1", name: "read_file", input: { path: "x" } },
    ])
    expect(response!.stopReason).toBe("tool_use")
  })

  describe("freeform calls (custom tools, apply_patch): their arguments are JSON like every call's", () => {
    /** Each call's argument deltas joined, and its final input. */
    const callsOf = (events: readonly StreamEvent[]) => {
      const calls = new Map<string, { args: string; input?: unknown }>()
      for (const e of events)
        if (e.type === "tool_call_start") calls.set(e.id, { args: "" })
        else if (e.type === "tool_call_delta") calls.get(e.id)!.args += e.argsDelta
        else if (e.type === "tool_call_end") calls.get(e.id)!.input = e.input
      return [...calls.values()]
    }
    const completed = (file: string) => {
      const last = lines(file)
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; response?: unknown })
        .find((p) => p.type === "response.completed")!
      return last.response
    }
    const WANT: Record<string, unknown> = {
      "openai-custom-tool.1.chunks.txt": { input: "SELECT * FROM users WHERE age > 25" },
      "openai-apply-patch-tool.1.chunks.txt": {
        input: patchEnvelope({
          type: "create_file",
          path: "shopping-checklist.md",
          diff: "+## Shopping Checklist\n+\n+- [ ] Milk\n+- [ ] Bread\n+- [ ] Eggs\n+- [ ] Fresh fruit\n+- [ ] Coffee\n",
        }),
      },
    }

    it("streamed under any split of the bytes, and whole: the joined deltas parse to the final input (property)", () => {
      for (const [file, input] of Object.entries(WANT)) {
        const bytes = new TextEncoder().encode(
          lines(file)
            .split("\n")
            .filter(Boolean)
            .map((l) => `data: ${l}\n\n`)
            .join(""),
        )
        fc.assert(
          fc.property(fc.array(fc.nat(bytes.length), { maxLength: 12 }), (cuts) => {
            const decoder = new StreamDecoder("openai-responses")
            const out: StreamEvent[] = []
            let from = 0
            for (const at of [...new Set(cuts)].sort((a, b) => a - b)) {
              decoder.feed(bytes.subarray(from, at), out)
              from = at
            }
            decoder.feed(bytes.subarray(from), out)
            decoder.end(out)
            expect(callsOf(out).map((c) => [JSON.parse(c.args), c.input])).toEqual([[input, input]])
          }),
          { numRuns: 30 },
        )
        const whole = callsOf(responsesResponseEvents(completed(file)))
        expect(
          whole.map((c) => [JSON.parse(c.args), c.input]),
          file,
        ).toEqual([[input, input]])
      }
    })

    it("a patch deleting a file streams no diff; one announced without its operation streams whole at its end", () => {
      const item = (operation?: Record<string, unknown>) => ({
        type: "apply_patch_call",
        id: "apc_1",
        call_id: "call_1",
        status: "in_progress",
        ...(operation ? { operation } : {}),
      })
      const run = (added: Record<string, unknown>, done: Record<string, unknown>, deltas: string[]) => {
        const payloads = [
          { type: "response.created", response: { id: "resp_1" } },
          { type: "response.output_item.added", output_index: 0, item: added },
          ...deltas.map((delta) => ({
            type: "response.apply_patch_call_operation_diff.delta",
            output_index: 0,
            delta,
          })),
          { type: "response.output_item.done", output_index: 0, item: { ...done, status: "completed" } },
          { type: "response.completed", response: { id: "resp_1", status: "completed" } },
        ]
        return callsOf(decodePayloadLines("openai-responses", payloads.map((p) => JSON.stringify(p)).join("\n")).events)
      }
      const deleting = { type: "delete_file", path: "old.ts", diff: "" }
      const [deleted] = run(item(deleting), item(deleting), ["-gone\n"])
      expect([JSON.parse(deleted!.args), deleted!.input]).toEqual([
        { input: "*** Begin Patch\n*** Delete File: old.ts\n*** End Patch" },
        { input: "*** Begin Patch\n*** Delete File: old.ts\n*** End Patch" },
      ])
      const update = { type: "update_file", path: "a.ts", diff: "@@\n-x\n+y" }
      const [late] = run(item(), item(update), ["@@\n", "-x\n+y"])
      expect([JSON.parse(late!.args), late!.input]).toEqual([
        { input: patchEnvelope(update) },
        { input: patchEnvelope(update) },
      ])
    })

    it("a freeform call cut off is reported cut, never ended", () => {
      const text = lines("openai-custom-tool.1.chunks.txt").split("\n").slice(0, 4).join("\n")
      const { events } = decodePayloadLines("openai-responses", text)
      expect(events.some((e) => e.type === "tool_call_end")).toBe(false)
      expect(events.filter((e) => e.type === "error").map((e) => (e as { kind?: string }).kind)).toEqual([
        "partial-call",
        "truncated",
      ])
    })
  })

  it("builds apply_patch envelopes for each operation", () => {
    expect(patchEnvelope({ type: "update_file", path: "a.ts", diff: "@@\n-x\n+y" })).toBe(
      "*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n*** End Patch",
    )
    expect(patchEnvelope({ type: "delete_file", path: "old.ts" })).toBe(
      "*** Begin Patch\n*** Delete File: old.ts\n*** End Patch",
    )
  })

  it("subtracts cached and cache-written tokens from input", () => {
    expect(
      responsesUsage({
        input_tokens: 100,
        input_tokens_details: { cached_tokens: 60, cache_write_tokens: 30 },
        output_tokens: 9,
      }),
    ).toEqual({ input: 10, output: 9, cacheRead: 60, cacheWrite: 30 })
  })

  interface OutputItem {
    type: string
    id: string
    encrypted_content: string
  }
  interface Payload {
    type: string
    item?: OutputItem
    response?: { output: OutputItem[] }
  }

  describe("the reasoning item's encrypted_content (docs/decisions.md: which one goes back)", () => {
    const text = lines("openai-reasoning-encrypted-content.1.chunks.txt")
    const payloads = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Payload)
    const done = payloads.find((p) => p.type === "response.output_item.done" && p.item?.type === "reasoning")!.item!
    const completed = payloads
      .find((p) => p.type === "response.completed")!
      .response!.output.find((o) => o.type === "reasoning")!

    it("takes the value of response.output_item.done, not the different one of response.completed", () => {
      // The recording carries two encryptions of the same reasoning (same length, different bytes).
      expect(completed.id).toBe(done.id)
      expect(completed.encrypted_content).not.toBe(done.encrypted_content)
      expect(completed.encrypted_content.length).toBe(done.encrypted_content.length)
      const [first] = assembleAll(decodePayloadLines("openai-responses", text).events)
      expect(first!.message.content[0]).toMatchObject({ id: done.id, signature: done.encrypted_content })
    })

    it("falls back to response.completed when the item's output_item.done was lost", () => {
      const without = text
        .split("\n")
        .filter((l) => !(l.includes('"response.output_item.done"') && l.includes('"type":"reasoning"')))
        .join("\n")
      const [first] = assembleAll(decodePayloadLines("openai-responses", without).events)
      expect(first!.complete).toBe(true)
      expect(first!.message.content[0]).toMatchObject({
        type: "thinking",
        id: completed.id,
        signature: completed.encrypted_content,
      })
      expect((first!.message.content[0] as { text: string }).text.startsWith("**Calculating")).toBe(true)
    })
  })

  describe("stops and errors keep the provider's code and message", () => {
    const custom = lines("openai-custom-tool.1.chunks.txt")

    /** The recording with its response.completed turned into response.incomplete for `reason`. */
    const incompleteFor = (reason: string) =>
      custom
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const p = JSON.parse(line) as { type: string; response?: Record<string, unknown> }
          if (p.type !== "response.completed") return line
          const response = { ...p.response, status: "incomplete", incomplete_details: { reason } }
          return JSON.stringify({ ...p, type: "response.incomplete", response })
        })
        .join("\n")

    it("an incomplete response for a reason other than max_output_tokens or content_filter is an error", () => {
      const [response] = assembleAll(decodePayloadLines("openai-responses", incompleteFor("server_shutdown")).events)
      expect(response!.stopReason).toBe("error")
      expect(response!.rawStopReason).toBe("server_shutdown")
      expect(response!.errors).toEqual([
        { type: "error", kind: "server", message: "incomplete: the response stopped early (server_shutdown)" },
      ])
      const [cut] = assembleAll(decodePayloadLines("openai-responses", incompleteFor("max_output_tokens")).events)
      expect([cut!.complete, cut!.stopReason, cut!.errors]).toEqual([true, "length", []])
    })

    it("an error event with a wait in its message gives retryAfterMs", () => {
      const first = custom.split("\n")[0]!
      const error = {
        type: "error",
        code: "rate_limit_exceeded",
        message: "Rate limit reached for gpt-5 on tokens per min (TPM). Please try again in 1.5s.",
      }
      const [response] = assembleAll(
        decodePayloadLines("openai-responses", `${first}\n${JSON.stringify(error)}`).events,
      )
      expect(response!.errors).toEqual([
        {
          type: "error",
          kind: "rate-limit",
          message:
            "rate_limit_exceeded: Rate limit reached for gpt-5 on tokens per min (TPM). Please try again in 1.5s.",
          retryAfterMs: 1500,
        },
      ])
      expect(response!.stopReason).toBe("error")
    })
  })
})
