import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { Session } from "../agent/session.js"
import { parseReplayScript } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { runCli, testSessionsDir } from "./test-helpers/run.js"

const servers: ReplayServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

const ENV = { PATH: process.env.PATH, SHELL: "/bin/sh", OPENAI_API_KEY: "k" }
const TASK = "Summarize the big file for the team."
const LATER = "Now read it once more and check the summary."
const read = { name: "read_file", input: { path: "big.txt" } }
const complete = { toolCalls: [{ name: "attempt_completion", input: { result: "done" } }] }

type Body = Record<string, unknown>
const events = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type: string; id?: string; message?: string })

describe("promptline run --compaction provider on OpenAI Responses: the compact endpoint", () => {
  it("compacts the history through /v1/responses/compact when a request would not fit, and sends the item next", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "pl-compact-endpoint-"))
    // About 6,000 tokens of distinct lines: one read fits the small window, three do not.
    const lines = Array.from({ length: 900 }, (_, i) => `line ${i}: the value of entry ${i * 7} is ${i * 13}`)
    await writeFile(join(cwd, "big.txt"), `${lines.join("\n")}\n`)
    await writeFile(
      join(cwd, "promptline.config.json"),
      JSON.stringify({ models: [{ id: "gpt-5", contextWindow: 40_000, maxOutput: 4_000 }] }),
    )
    const base = ["run", "--no-mcp", "--cwd", cwd, "--provider", "openai", "--format", "openai-responses"]
    const flags = ["--model", "gpt-5", "--compaction", "provider", "--json"]
    const first = await startReplayServer({
      script: parseReplayScript({ version: 1, turns: [{ toolCalls: [read] }, complete] }),
    })
    servers.push(first)
    const r1 = await runCli([...base, ...flags, "--base-url", first.urls.openai, TASK], { env: ENV })
    expect(r1.stderr).toBe("")
    expect(r1.code).toBe(0)
    const id = events(r1.stdout).find((e) => e.type === "session")!.id!
    expect(first.requests.some((q) => q.compact)).toBe(false)

    const replay = await startReplayServer({
      script: parseReplayScript({
        version: 1,
        turns: [{ toolCalls: [read] }, { toolCalls: [read] }, { toolCalls: [read] }, complete],
        compact: { payload: "enc-compacted" },
      }),
    })
    servers.push(replay)
    const r2 = await runCli([...base, ...flags, "--base-url", replay.urls.openai, "--resume", id, LATER], {
      env: ENV,
    })
    expect(r2.stderr).toBe("")
    expect(r2.code).toBe(0)
    const seq = replay.requests.map((q) => (q.compact ? "compact" : "turn"))
    const at = seq.indexOf("compact")
    expect(at).toBeGreaterThan(0)
    // The compact request carries the history: the task, the later request and the file's contents.
    const compactBody = JSON.stringify(replay.requests[at]!.body)
    expect(compactBody).toContain(TASK)
    expect(compactBody).toContain(LATER)
    expect(compactBody).toContain("line 899:")
    expect(replay.requests[at]!.path).toBe("/v1/responses/compact")
    // The next request carries the returned item, the task and the latest request.
    const next = replay.requests[at + 1]!.body as Body
    const input = next.input as Body[]
    expect(input).toContainEqual(expect.objectContaining({ type: "compaction", encrypted_content: "enc-compacted" }))
    const text = JSON.stringify(input)
    expect(text).toContain(TASK)
    expect(text).toContain(LATER)
    // It was compacted rather than cut: nothing before the item but the user's own requests.
    const before = input.slice(
      0,
      input.findIndex((i) => i.type === "compaction"),
    )
    expect(before.every((i) => (i.type ?? "message") === "message" && i.role === "user")).toBe(true)
    expect(events(r2.stdout).some((e) => e.message?.includes("compact endpoint condensed the conversation"))).toBe(true)
    // The session keeps the item as the provider's turn.
    const { history } = await Session.resume(cwd, id, { dir: testSessionsDir(cwd) })
    const kept = history.flatMap((m) => m.content.map((b) => ({ role: m.role, b })))
    expect(kept).toContainEqual({
      role: "assistant",
      b: expect.objectContaining({ type: "compaction", payload: "enc-compacted", provider: "openai" }),
    })
    replay.assertComplete()
  })
})
