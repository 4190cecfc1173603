import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { createContext } from "../context/prompt-context.js"
import { ContextManager } from "../history/context-manager.js"
import type { Message } from "../history/message.js"
import { PromptBuilder } from "../prompt/builder.js"
import type { StreamEvent } from "../providers/stream.js"
import { Agent, type SendRequest } from "./loop.js"
import { Session } from "./session.js"

const SUMMARY = "## Progress\n- read the files\n## Decisions\n- none\n## Open items\n- finish"

async function* answer(events: StreamEvent[]): AsyncIterable<StreamEvent> {
  yield* events
}

const text = (id: string, role: Message["role"], t: string): Message => ({
  id,
  role,
  ts: 1,
  content: [{ type: "text", text: t }],
})

/**
 * A history whose compaction item another wire format made: the first turn summarizes the turns it condensed
 * (a summarizing request), then asks for the turn itself. Both go through the loop's one request path.
 */
async function run(encode: { nativeToolSearch?: boolean }) {
  const cwd = await mkdtemp(join(tmpdir(), "pl-one-path-"))
  const context = createContext({
    cwd,
    platform: { os: "Linux", shell: "/bin/sh", home: "/nonexistent" },
    date: "2026-11-29",
    model: { id: "claude-sonnet-4-5", provider: "anthropic" },
    interactive: false,
    tools: { search: { mode: "always", defer: ["list_files", "write_to_file"] } },
  })
  const history: Message[] = [
    text("u1", "user", "Tidy the notes folder."),
    text("a1", "assistant", "Looking at it."),
    text("u2", "user", "Go on."),
    {
      id: "a2",
      role: "assistant",
      ts: 1,
      content: [{ type: "compaction", format: "openai-responses", provider: "openai", payload: "opaque" }],
    },
    text("u3", "user", "And the docs folder too."),
    text("a3", "assistant", "Will do."),
    text("u4", "user", "Thanks."),
  ]
  const sent: { format: string; body: Record<string, unknown> }[] = []
  const send: SendRequest = async (r) => {
    sent.push({ format: r.format, body: r.body as Record<string, unknown> })
    const reply = sent.length === 1 ? SUMMARY : "Done."
    return answer([
      { type: "text", delta: reply },
      { type: "stop", reason: "end" },
    ])
  }
  const session = await Session.create(
    cwd,
    { id: "s", created: 0, cwd, model: "claude-sonnet-4-5", provider: "anthropic", task: "Tidy the notes folder." },
    { dir: await mkdtemp(join(tmpdir(), "pl-one-path-sessions-")) },
  )
  const agent = new Agent({
    context,
    builder: new PromptBuilder(),
    manager: await ContextManager.create(),
    send,
    session,
    history,
    approve: "all",
    maxTurns: 1,
    now: () => 2,
    today: () => "2026-11-29",
    encode,
  })
  await agent.run()
  return sent
}

describe("the agent loop's one request path", () => {
  it("a summarizing request carries the same wire format, system prompt and tools as the turn after it", async () => {
    for (const nativeToolSearch of [false, true]) {
      const sent = await run({ nativeToolSearch })
      expect(sent.length).toBeGreaterThanOrEqual(2)
      const [summary, turn] = sent as [(typeof sent)[0], (typeof sent)[0]]
      expect(JSON.stringify(summary.body.messages)).toContain("Condense the conversation above")
      expect(summary.format).toBe(turn.format)
      expect(summary.body.system).toEqual(turn.body.system)
      // With native tool search the deferred tools are in `tools` (deferred): the summary shares the cached prefix.
      expect(summary.body.tools).toEqual(turn.body.tools)
      const names = (turn.body.tools as { name?: string }[]).map((t) => t.name)
      expect(names.includes("list_files")).toBe(nativeToolSearch)
    }
  })
})
