import { mkdtempSync } from "node:fs"
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createContext, type InstructionFile, type PromptContext } from "../context/prompt-context.js"
import { ContextManager } from "../history/context-manager.js"
import { PromptBuilder } from "../prompt/builder.js"
import { endpointFor } from "../providers/endpoints.js"
import { parseReplayScript } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import type { ApprovalPolicy } from "./approval.js"
import type { AgentEvent } from "./events.js"
import { Agent, type AgentConfig, type RunResult } from "./loop.js"
import { Session } from "./session.js"
import { send } from "./transport/http.js"

/** Sessions of these tests are kept in a temporary state folder. */
const place = { env: { XDG_STATE_HOME: mkdtempSync(join(tmpdir(), "pl-agent-state-")) } }

const servers: ReplayServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

async function workspace(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "pl-agent-"))
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), text)
  }
  return dir
}

function contextFor(cwd: string, instructions: InstructionFile[] = []): PromptContext {
  return createContext({
    cwd,
    platform: { os: "Linux", shell: "/bin/sh", home: "/nonexistent-home" },
    date: "2026-11-29",
    model: { id: "claude-sonnet-4-5", provider: "anthropic" },
    interactive: false,
    instructions,
  })
}

interface Setup {
  cwd: string
  turns: unknown[]
  approve?: ApprovalPolicy
  confirm?: (summary: string) => Promise<boolean>
  instructions?: InstructionFile[]
  today?: () => string
  session?: Session
  history?: Awaited<ReturnType<typeof Session.resume>>["history"]
  abortOn?: (e: AgentEvent) => boolean
  maxTurns?: number
  executor?: AgentConfig["executor"]
}

/** Waits the agent asked for between attempts after a failed stream (the test does not wait). */
const sleeps: number[] = []

async function runAgent(
  setup: Setup,
): Promise<{ result: RunResult; events: AgentEvent[]; server: ReplayServer; session: Session }> {
  const script = parseReplayScript({ version: 1, task: "Do the task.", turns: setup.turns })
  const server = await startReplayServer({ script })
  servers.push(server)
  const context = contextFor(setup.cwd, setup.instructions)
  const endpoint = endpointFor({ provider: "anthropic", env: {}, baseUrl: server.urls.anthropic, apiKey: "replay" })
  const session =
    setup.session ??
    (await Session.create(
      setup.cwd,
      {
        id: `s${Date.now()}`,
        created: 0,
        cwd: setup.cwd,
        model: "m",
        provider: "anthropic",
        task: "Do the task.",
      },
      place,
    ))
  const events: AgentEvent[] = []
  const controller = new AbortController()
  let clock = 1_000
  const agent = new Agent({
    context,
    builder: new PromptBuilder(),
    manager: await ContextManager.create(),
    send: (r) =>
      send(endpoint, {
        format: r.format,
        body: r.body,
        model: r.model.id,
        signal: r.signal,
        onRetry: (i) => r.onRetry(i.attempt, i.delayMs, i.error),
        retry: { sleep: async () => {} },
      }),
    session,
    ...(setup.history ? { history: setup.history } : {}),
    approve: setup.approve ?? "all",
    ...(setup.confirm ? { confirm: (s: string) => setup.confirm!(s) } : {}),
    maxTurns: setup.maxTurns ?? 10,
    ...(setup.executor ? { executor: setup.executor } : {}),
    sleep: async (ms) => {
      sleeps.push(ms)
    },
    now: () => ++clock,
    today: setup.today ?? (() => "2026-11-29"),
    onEvent: (e) => {
      events.push(e)
      if (setup.abortOn?.(e)) controller.abort()
    },
    signal: controller.signal,
  })
  const result = await agent.run()
  return { result, events, server, session }
}

const complete = { toolCalls: [{ name: "attempt_completion", input: { result: "done" } }] }
const results = (events: AgentEvent[]) =>
  events.filter((e): e is Extract<AgentEvent, { type: "tool_result" }> => e.type === "tool_result")

describe("the agent loop", () => {
  it("takes a text answer as final when the run changed nothing: no nudge, no extra turn", async () => {
    const cwd = await workspace({ "a.txt": "alpha\n" })
    const direct = await runAgent({ cwd, turns: [{ text: "It is a text file." }] })
    expect(direct.result).toMatchObject({ reason: "answered", result: "It is a text file.", turns: 1 })
    const afterReading = await runAgent({
      cwd,
      turns: [{ toolCalls: [{ name: "read_file", input: { path: "a.txt" } }] }, { text: "It says alpha." }],
    })
    expect(afterReading.result).toMatchObject({ reason: "answered", result: "It says alpha.", turns: 2 })
    expect(afterReading.server.divergences).toEqual([])
  })

  it("after a call that may change something, a text answer is nudged once toward the completion tool", async () => {
    const cwd = await workspace({})
    const { result, server } = await runAgent({
      cwd,
      turns: [
        { toolCalls: [{ name: "execute_command", input: { command: "echo hi", requires_approval: false } }] },
        { text: "Ran it." },
        { ...complete, expect: { userText: "/call the completion tool/" } },
      ],
    })
    expect(server.divergences).toEqual([])
    expect(result).toMatchObject({ reason: "completed", turns: 3 })
  })

  it("refuses a write outside the workspace, reports bad arguments, and times out a hanging command", async () => {
    const cwd = await workspace({ "a.txt": "hello\n" })
    const { result, events, server } = await runAgent({
      cwd,
      turns: [
        { toolCalls: [{ name: "write_to_file", input: { path: "../outside.txt", content: "x" } }] },
        {
          toolCalls: [{ name: "read_file", input: { start_line: 1 } }],
          expect: { toolResults: [{ tool: "write_to_file", matches: "/outside the workspace/i" }] },
        },
        {
          toolCalls: [{ name: "execute_command", input: { command: "sleep 30", timeout: 1 } }],
          expect: { toolResults: [{ tool: "read_file", matches: "path" }] },
        },
        { ...complete, expect: { toolResults: [{ tool: "execute_command", matches: "/timed out|timeout/i" }] } },
      ],
    })
    expect(server.divergences).toEqual([])
    expect(result.reason).toBe("completed")
    expect(results(events).map((r) => r.isError)).toEqual([true, true, true, false])
    await expect(readFile(join(dirname(cwd), "outside.txt"), "utf8")).rejects.toThrow()
  })

  it("a denied call gets a tool_result that says so, and nothing runs", async () => {
    const cwd = await workspace({})
    const asked: string[] = []
    const { result, events, server } = await runAgent({
      cwd,
      approve: "reads",
      confirm: async (summary) => {
        asked.push(summary)
        return false
      },
      turns: [
        { toolCalls: [{ name: "write_to_file", input: { path: "new.txt", content: "x" } }] },
        { ...complete, expect: { toolResults: [{ tool: "write_to_file", matches: "/did not run/" }] } },
      ],
    })
    expect(server.divergences).toEqual([])
    expect(result.reason).toBe("completed")
    expect(results(events)[0]).toMatchObject({ isError: true, denied: true })
    await expect(readFile(join(cwd, "new.txt"), "utf8")).rejects.toThrow()
  })

  it("retries a rate limit and truncates harder after a context overflow", async () => {
    const cwd = await workspace({ "a.txt": "hello\n".repeat(2000) })
    const read = { toolCalls: [{ name: "read_file", input: { path: "a.txt" } }] }
    const { result, events, server } = await runAgent({
      cwd,
      turns: [
        { ...read, faults: [{ kind: "rate-limit", retryAfter: 1 }] },
        read,
        read,
        read,
        { ...complete, faults: [{ kind: "context-overflow" }] },
      ],
    })
    expect(server.divergences).toEqual([])
    expect(result.reason).toBe("completed")
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1)
    expect(events.some((e) => e.type === "notice" && e.message.includes("context overflow"))).toBe(true)
    // Each fit that edited the context is one summarized line with the tokens it freed, not a line per edit.
    const notes = events.filter((e) => e.type === "notice" && e.message.startsWith("context")) as { message: string }[]
    expect(notes.length).toBeGreaterThan(0)
    for (const n of notes) expect(n.message).toMatch(/^context: \d+ [a-z]+(, \d+ [a-z]+)* edits?, [\d,]+ tokens freed$/)
    // The request after the overflow is much smaller than the one that overflowed (older copies of the
    // file read four times were replaced by a notice).
    const sizes = server.requests.map((r) => JSON.stringify(r.body).length)
    expect(sizes.at(-1)!).toBeLessThan(sizes.at(-2)! / 2)
  })

  it("asks again when the stream is cut mid-way, discarding the partial answer", async () => {
    const cwd = await workspace({})
    sleeps.length = 0
    const { result, events, server } = await runAgent({
      cwd,
      turns: [{ text: "Finishing now.", ...complete, faults: [{ kind: "disconnect" }] }],
    })
    expect(server.divergences).toEqual([])
    expect(result.reason).toBe("completed")
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1)
    expect(sleeps).toEqual([1000])
    expect(result.history.filter((m) => m.role === "assistant")).toHaveLength(1)
  })

  it("counts the turn limit per run, so a stopped session can be continued", async () => {
    const cwd = await workspace({})
    const first = await runAgent({
      cwd,
      maxTurns: 1,
      turns: [{ toolCalls: [{ name: "list_files", input: { path: "." } }] }],
    })
    expect(first.result.reason).toBe("max_turns")
    const resumed = await Session.resume(cwd, first.session.id, place)
    const second = await runAgent({
      cwd,
      maxTurns: 1,
      session: resumed.session,
      history: resumed.history,
      turns: [complete],
    })
    expect(second.result).toMatchObject({ reason: "completed", turns: 1 })
  })

  it("a session resumed on a later day is told the new date, its first message unchanged", async () => {
    const cwd = await workspace({})
    const first = await runAgent({
      cwd,
      turns: [{ toolCalls: [{ name: "list_files", input: { path: "." } }] }],
      abortOn: (e) => e.type === "tool_result",
    })
    const resumed = await Session.resume(cwd, first.session.id, place)
    const second = await runAgent({
      cwd,
      session: resumed.session,
      history: resumed.history,
      today: () => "2026-12-01",
      turns: [{ ...complete, expect: { userText: "/date is now 2026-12-01/" } }],
    })
    expect(second.server.divergences).toEqual([])
    expect(second.result.reason).toBe("completed")
  })

  it("retries a context overflow only once", async () => {
    const cwd = await workspace({})
    const { result, events } = await runAgent({
      cwd,
      turns: [{ ...complete, faults: [{ kind: "context-overflow" }, { kind: "context-overflow" }] }],
    })
    expect(result.reason).toBe("error")
    expect(events.filter((e) => e.type === "notice" && e.message.includes("context overflow"))).toHaveLength(1)
  })

  it("attaches conditional rules when a path switches them on, and reports files changed by someone else", async () => {
    const cwd = await workspace({ "src/api/routes.ts": "export {}\n", "notes.txt": "v1\n" })
    const rule: InstructionFile = {
      path: ".claude/rules/api.md",
      convention: "claude",
      scope: "project",
      text: "API handlers validate their input with zod.",
      activation: { when: "paths", globs: ["src/api/**"] },
    }
    const { result, server } = await runAgent({
      cwd,
      instructions: [rule],
      turns: [
        { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
        {
          toolCalls: [{ name: "read_file", input: { path: "src/api/routes.ts" } }],
          // Someone else edits notes.txt while the agent works (this command is not a tracked write).
        },
        {
          toolCalls: [{ name: "execute_command", input: { command: "echo v2 > notes.txt" } }],
          expect: { userText: "/validate their input with zod/" },
        },
        { ...complete, expect: { userText: "/files_changed_externally[\\s\\S]*notes.txt/" } },
      ],
    })
    expect(server.divergences).toEqual([])
    expect(result.reason).toBe("completed")
  })

  it("never rewrites the context message: a new day is appended as a short message", async () => {
    const cwd = await workspace({})
    let day = "2026-11-29"
    const { result, server } = await runAgent({
      cwd,
      today: () => day,
      turns: [
        { toolCalls: [{ name: "list_files", input: { path: "." } }] },
        { ...complete, expect: { userText: "/date is now 2026-11-30/" } },
      ],
      abortOn: (e) => {
        if (e.type === "tool_call") day = "2026-11-30"
        return false
      },
    })
    expect(server.divergences).toEqual([])
    expect(result.reason).toBe("completed")
    const bodies = server.requests.map((r) =>
      JSON.stringify((r.body as { messages: { content: unknown }[] }).messages[0]),
    )
    expect(new Set(bodies).size).toBe(1)
    expect(bodies[0]).toContain("2026-11-29")
  })

  it("resumes an interrupted session: the unanswered call is answered, the history goes on", async () => {
    const cwd = await workspace({ "a.txt": "hello\n" })
    const first = await runAgent({
      cwd,
      turns: [{ toolCalls: [{ name: "read_file", input: { path: "a.txt" } }] }],
      abortOn: (e) => e.type === "tool_call",
    })
    expect(first.result.reason).toBe("aborted")
    expect(first.session.meta.status).toBe("interrupted")
    const resumed = await Session.resume(cwd, first.session.id, place)
    expect(resumed.history.map((m) => m.role)).toEqual(["user", "assistant", "user"])
    const second = await runAgent({
      cwd,
      session: resumed.session,
      history: resumed.history,
      turns: [{ ...complete, expect: { toolResults: [{ tool: "read_file" }] } }],
    })
    expect(second.server.divergences).toEqual([])
    expect(second.result.reason).toBe("completed")
    const final = await Session.resume(cwd, first.session.id, place)
    expect(final.session.meta.status).toBe("completed")
    expect(final.history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"])
  })

  it("a tool result larger than the model's whole window is cut to fit, and the run completes", async () => {
    // About 1.3 million characters: far more than claude-sonnet-4-5's 200k-token window.
    const line = (n: number) => `${String(n).padStart(6, "0")} ${"lorem ipsum dolor sit amet ".repeat(24)}`
    const huge = Array.from({ length: 2000 }, (_, i) => line(i + 1)).join("\n")
    const cwd = await workspace({ "huge.txt": huge })
    const { result, events, server } = await runAgent({
      cwd,
      executor: { limits: { readMaxBytes: 4 * 1024 * 1024 } },
      turns: [
        { toolCalls: [{ name: "read_file", input: { path: "huge.txt" } }] },
        {
          ...complete,
          expect: {
            toolResults: [
              {
                tool: "read_file",
                matches:
                  "/000001[\\s\\S]*characters .*were removed here[\\s\\S]*read_file with start_line \\d+ and end_line \\d+[\\s\\S]*002000/",
              },
            ],
          },
        },
      ],
    })
    expect(server.divergences).toEqual([])
    expect(result.reason).toBe("completed")
    expect(events.some((e) => e.type === "diagnostic" && e.diagnostic.code === "context-over-budget")).toBe(false)
    // What was sent stays within the window (four characters per token is generous for this text).
    const last = JSON.stringify(server.requests.at(-1)!.body).length
    expect(last).toBeLessThan(200_000 * 4)
    expect(results(events)[0]!.summary).toMatch(/cut to fit the context/)
  })
})
