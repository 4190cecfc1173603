import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { parseReplayScript, type ReplayScriptInput } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { runCli } from "./test-helpers/run.js"

const servers: ReplayServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

async function workspace(): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), "pl-provider-compaction-"))
  await writeFile(join(cwd, "README.md"), "a sample\n")
  return cwd
}

async function server(script: Omit<ReplayScriptInput, "version">): Promise<ReplayServer> {
  const s = await startReplayServer({ script: parseReplayScript({ version: 1, ...script }) })
  servers.push(s)
  return s
}

const read = { name: "read_file", input: { path: "README.md" } }
const complete = { toolCalls: [{ name: "attempt_completion", input: { result: "done" } }] }
const ENV = { PATH: process.env.PATH, SHELL: "/bin/sh", OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" }

type Body = Record<string, unknown>
const events = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type: string; message?: string; diagnostic?: { code: string } })

describe("promptline run --compaction provider", () => {
  it("OpenAI Responses: asks for server-side compaction, keeps the compaction item and sends only the window from it", async () => {
    const replay = await server({ turns: [{ compaction: { payload: "enc-1" }, toolCalls: [read] }, complete] })
    const cwd = await workspace()
    const r = await runCli(
      [
        ...["run", "--no-mcp", "--cwd", cwd, "--provider", "openai", "--format", "openai-responses"],
        ...["--model", "gpt-5", "--base-url", replay.urls.openai, "--compaction", "provider", "--json", "do it"],
      ],
      { env: ENV },
    )
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const [first, second] = replay.requests.map((q) => q.body as Body)
    expect(first!.context_management).toEqual([{ type: "compaction", compact_threshold: expect.any(Number) }])
    const input = second!.input as Body[]
    // The user's request, then the compaction item and what followed it; nothing else from before.
    expect(input.map((i) => i.type ?? "message")).toEqual([
      "message",
      "compaction",
      "function_call",
      "function_call_output",
    ])
    expect(input[1]).toEqual({ type: "compaction", id: "cmp_replay_0", encrypted_content: "enc-1" })
    expect(events(r.stdout).some((e) => e.message?.includes("the provider compacted the conversation"))).toBe(true)
  })

  it("Anthropic: sends the compaction edit with its beta header, returns the compaction block and reports applied edits", async () => {
    const replay = await server({
      turns: [
        {
          compaction: { payload: "opaque-1", summary: "Summary of the earlier work." },
          contextEdits: [{ type: "clear_tool_uses_20250919", clearedInputTokens: 1200, clearedToolUses: 2 }],
          toolCalls: [read],
        },
        complete,
      ],
    })
    const cwd = await workspace()
    const r = await runCli(
      [
        ...["run", "--no-mcp", "--cwd", cwd, "--provider", "anthropic", "--model", "claude-sonnet-4-5"],
        ...["--base-url", replay.urls.anthropic, "--compaction", "provider", "--json", "do it"],
      ],
      { env: ENV },
    )
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const [first, second] = replay.requests
    const edits = ((first!.body as Body).context_management as { edits: Body[] }).edits
    expect(edits).toEqual([{ type: "compact_20260112", trigger: { type: "input_tokens", value: expect.any(Number) } }])
    expect((edits[0]!.trigger as { value: number }).value).toBeGreaterThanOrEqual(50_000)
    expect(String(first!.headers["anthropic-beta"])).toContain("compact-2026-01-12")
    const messages = (second!.body as Body).messages as { role: string; content: Body[] }[]
    const assistant = messages.find((m) => m.role === "assistant")!
    expect(assistant.content[0]).toEqual({
      type: "compaction",
      content: "Summary of the earlier work.",
      encrypted_content: "opaque-1",
    })
    expect(
      events(r.stdout).some(
        (e) => e.message === "context: the provider applied clear_tool_uses_20250919 (1,200 input tokens cleared)",
      ),
    ).toBe(true)
  })

  it("a model switch drops the other provider's compaction item with a diagnostic and summarizes with our own stage", async () => {
    const anthropic = await server({
      turns: [
        { compaction: { payload: "opaque-1", summary: "Summary of the earlier work." }, toolCalls: [read] },
        { text: "Read it.", toolCalls: [read] },
        complete,
      ],
    })
    const cwd = await workspace()
    const base = ["run", "--no-mcp", "--cwd", cwd, "--compaction", "provider", "--json"]
    const first = await runCli(
      [
        ...base,
        "--provider",
        "anthropic",
        "--model",
        "claude-sonnet-4-5",
        "--base-url",
        anthropic.urls.anthropic,
        "do it",
      ],
      { env: ENV },
    )
    expect(first.code).toBe(0)
    const id = events(first.stdout).find((e) => e.type === "session") as unknown as { id: string }
    const openai = await server({
      turns: [complete],
      summary: { text: "## Progress\n- read README.md\n## Open items\n- go on" },
    })
    const second = await runCli(
      [
        ...base,
        ...[
          "--provider",
          "openai",
          "--format",
          "openai-responses",
          "--model",
          "gpt-5",
          "--base-url",
          openai.urls.openai,
        ],
        ...["--resume", id.id, "now check it again"],
      ],
      { env: ENV },
    )
    expect(second.stderr).toMatch(/^note: session \S+ was started with claude-sonnet-4-5/)
    expect(second.code).toBe(0)
    const seen = events(second.stdout)
    expect(seen.some((e) => e.message?.includes("made by another provider cannot go to openai"))).toBe(true)
    expect(seen.some((e) => e.diagnostic?.code === "compaction-dropped")).toBe(true)
    // Our own summary replaced the turns the item condensed; no request carries the foreign item.
    expect(openai.requests.some((q) => q.summary)).toBe(true)
    for (const q of openai.requests) expect(JSON.stringify(q.body)).not.toContain("opaque-1")
  })
})
