import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { InspectReport } from "../inspect/report-types.js"
import type { TraceReport } from "../inspect/trace-report.js"
import { parseReplayScript } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { runCli, testSessionsDir } from "./test-helpers/run.js"

const servers: ReplayServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})

const ENV = { PATH: process.env.PATH, SHELL: "/bin/sh", ANTHROPIC_API_KEY: "sk-ant-secret", NO_COLOR: "1" }
const MODEL = "claude-sonnet-4-5"
const turns = [
  { toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
  { toolCalls: [{ name: "attempt_completion", input: { result: "done" } }] },
]

async function replay(script: unknown[]): Promise<ReplayServer> {
  const server = await startReplayServer({ script: parseReplayScript({ version: 1, turns: script }) })
  servers.push(server)
  return server
}

/** A run of two turns against the replay server, traced; returns the workspace, the session id and the output. */
async function tracedRun(): Promise<{ cwd: string; id: string; stdout: string; home: string }> {
  const cwd = await mkdtemp(join(tmpdir(), "pl-calibrate-"))
  const home = await mkdtemp(join(tmpdir(), "pl-calibrate-home-"))
  await writeFile(join(cwd, "README.md"), "a sample project that needs nothing\n")
  const server = await replay(turns)
  const args = ["run", "--no-mcp", "--cwd", cwd, "--base-url", server.urls.anthropic, "--model", MODEL]
  const r = await runCli([...args, "--trace", "traces", "read the readme"], { cwd, env: { ...ENV, HOME: home } })
  expect(r.stderr).toBe("")
  expect(r.code).toBe(0)
  const id = /^session (\S+) /m.exec(r.stdout)![1]!
  return { cwd, id, stdout: r.stdout, home }
}

const sessionMeta = async (cwd: string, id: string) =>
  JSON.parse(await readFile(join(testSessionsDir(cwd), id, "session.json"), "utf8")) as {
    calibration?: Record<string, { ratio: number; samples: number }>
  }

describe("the calibration of the token estimate, from run to inspect", () => {
  it("run keeps it per model in the session, shows it at the end, and a resumed run goes on from it", async () => {
    const { cwd, id, stdout, home } = await tracedRun()
    const kept = (await sessionMeta(cwd, id)).calibration![MODEL]!
    expect(kept.samples).toBe(2)
    expect(kept.ratio).toBeGreaterThan(0)
    expect(stdout).toContain(
      `token estimate for ${MODEL}: reported ÷ counted ${kept.ratio.toFixed(3)} over 2 requests (kept in the session)`,
    )
    const events = (await readFile(join(testSessionsDir(cwd), id, "events.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === "turn_end")
    expect(events.map((e) => e.calibration?.samples)).toEqual([1, 2])
    expect(events[1].calibration).toEqual({ model: MODEL, ...kept })
    // Resumed: the manager starts from the session's calibration, so the next answer is its third sample.
    const more = await replay([{ text: "All done already." }])
    const args = ["run", "--no-mcp", "--cwd", cwd, "--base-url", more.urls.anthropic, "--resume", id, "anything else?"]
    const r = await runCli(args, { cwd, env: { ...ENV, HOME: home } })
    expect(r.code).toBe(0)
    expect((await sessionMeta(cwd, id)).calibration![MODEL]!.samples).toBe(3)
  })

  it("inspect --session shows the session's calibration in the text, JSON and HTML reports", async () => {
    const { cwd, id, home } = await tracedRun()
    const kept = (await sessionMeta(cwd, id)).calibration![MODEL]!
    const env = { ...ENV, HOME: home }
    const base = ["inspect", "--no-mcp", "--cwd", cwd, "--model", MODEL, "--no-last-run", "--session", id]
    const json = await runCli([...base, "--json"], { cwd, env })
    expect(json.code).toBe(0)
    const report = JSON.parse(json.stdout) as InspectReport
    expect(report.calibrations).toEqual([{ model: MODEL, ...kept, source: "session", from: id }])
    const text = await runCli(base, { cwd, env })
    expect(text.stdout).toMatch(
      new RegExp(`^Calibration: reported ÷ counted ${kept.ratio.toFixed(3)} over 2 requests \\(session ${id};`, "m"),
    )
    await runCli([...base, "--html", "r.html"], { cwd, env })
    expect(await readFile(join(cwd, "r.html"), "utf8")).toContain(`over 2 requests (session ${id};`)
    // Another model: no calibration, said so as a note.
    const other = await runCli(
      ["inspect", "--no-mcp", "--cwd", cwd, "--model", "gpt-5", "--no-last-run", "--session", id, "--json"],
      { cwd, env },
    )
    const otherReport = JSON.parse(other.stdout) as InspectReport
    expect(otherReport.calibrations).toBeUndefined()
    expect(otherReport.diagnostics).toContainEqual(
      expect.objectContaining({
        code: "session-no-calibration",
        message: expect.stringContaining(`only for ${MODEL}`),
      }),
    )
    // A session that does not exist is a typed error, not a stack trace.
    const missing = await runCli([...base.slice(0, -1), "20990101-000000-00000000"], { cwd, env })
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toMatch(/no session "20990101-000000-00000000"/)
    expect(missing.stderr).not.toMatch(/\n\s+at /)
  })

  it("inspect --trace replays the context manager's calibration over the usage the trace reported", async () => {
    const { cwd, id, home } = await tracedRun()
    const kept = (await sessionMeta(cwd, id)).calibration![MODEL]!
    const [name] = await readdir(join(cwd, "traces", "conversations"))
    const file = join("traces", "conversations", name!)
    const env = { ...ENV, HOME: home }
    const r = await runCli(["inspect", "--trace", file, "--json"], { cwd, env })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout) as TraceReport
    expect(report.calibration).toMatchObject({ model: MODEL, samples: 2, source: "trace" })
    // The same moving ratio the run kept, from the wire bodies instead of the agent's own messages.
    expect(report.calibration!.ratio).toBeCloseTo(kept.ratio, 2)
    const first = JSON.parse(
      (await runCli(["inspect", "--trace", file, "--request", "1", "--json"], { cwd, env })).stdout,
    )
    expect(first.calibration.samples).toBe(1)
    const text = await runCli(["inspect", "--trace", file], { cwd, env })
    expect(text.stdout).toMatch(
      /^Calibration: reported ÷ counted \d\.\d{3} over 2 requests \(reported usage in the trace;/m,
    )
    await runCli(["inspect", "--trace", file, "--html", "t.html"], { cwd, env })
    expect(await readFile(join(cwd, "t.html"), "utf8")).toContain("over 2 requests (reported usage in the trace;")
  })
})
