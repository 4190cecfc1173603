import { execFile } from "node:child_process"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { runCli } from "../cli/test-helpers/run.js"
import type { AgentEvent } from "./events.js"

const script = fileURLToPath(new URL("../../examples/fix-failing-test.json", import.meta.url))
const run = promisify(execFile)

function events(stdout: string): AgentEvent[] {
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as AgentEvent)
}

const CASES: { provider: string; model: string; format: string; extra?: string[] }[] = [
  { provider: "anthropic", model: "claude-sonnet-4-5", format: "anthropic" },
  { provider: "openai", model: "gpt-4.1", format: "openai-chat" },
  { provider: "openai", model: "gpt-4.1", format: "openai-responses" },
  { provider: "gemini", model: "gemini-2.5-pro", format: "gemini" },
  { provider: "deepseek", model: "deepseek-chat", format: "deepseek" },
  { provider: "openai", model: "gpt-4.1", format: "openai-responses", extra: ["--websocket"] },
]

describe("promptline run --replay: the whole task end to end, without network", () => {
  for (const c of CASES) {
    for (const dialect of ["native", "xml"] as const) {
      it(`${c.format}${c.extra ? ` ${c.extra.join(" ")}` : ""}, ${dialect} tools`, async () => {
        const r = await runCli(
          [
            "run",
            ...(c.extra ?? []),
            "--replay",
            script,
            "--provider",
            c.provider,
            "--model",
            c.model,
            "--format",
            c.format,
            "--variant",
            "generic",
            "--tool-calling",
            dialect,
            "--no-mcp",
            "--json",
          ],
          { env: { PATH: process.env.PATH, SHELL: "/bin/sh", HOME: process.env.HOME } },
        )
        const evs = events(r.stdout)
        const done = evs.find((e) => e.type === "done")
        expect(r.stderr).toBe("")
        expect(done).toMatchObject({ type: "done", reason: "completed" })
        expect(r.code).toBe(0)
        const calls = evs.filter((e) => e.type === "tool_call").map((e) => (e as { name: string }).name)
        expect(calls).toEqual([
          "list_files",
          "execute_command",
          "read_file",
          "replace_in_file",
          "execute_command",
          "attempt_completion",
        ])
        const results = evs.filter((e) => e.type === "tool_result") as { isError: boolean; name: string }[]
        expect(results.filter((x) => x.isError && x.name !== "execute_command")).toEqual([])
        const session = evs.find((e) => e.type === "session") as { cwd: string; toolCalling: string }
        expect(session.toolCalling).toBe(dialect)
        // The fix is on disk and the project's tests pass.
        expect(await readFile(join(session.cwd, "src/slugify.js"), "utf8")).toContain("/^-+|-+$/g")
        await expect(run("node", ["--test"], { cwd: session.cwd })).resolves.toBeDefined()
        const turns = evs.filter((e) => e.type === "turn_end")
        expect(turns).toHaveLength(6)
      })
    }
  }
})

describe("promptline run, failing early", () => {
  it("a missing key is one clear error line", async () => {
    const r = await runCli(["run", "--no-mcp", "--cwd", fileURLToPath(new URL(".", import.meta.url)), "do something"], {
      env: { PATH: process.env.PATH },
    })
    expect(r.code).toBe(1)
    expect(r.stderr).toBe("promptline: Anthropic needs an API key: set ANTHROPIC_API_KEY.\n")
  })
})
