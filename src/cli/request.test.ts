import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { mixedHistory } from "../../test/fixtures/providers/requests/load.js"
import { PromptBuilder } from "../prompt/builder.js"
import { basicContext } from "../prompt/test-helpers/contexts.js"
import { runCli } from "./test-helpers/run.js"

let dir: string
let contextFile: string
let historyFile: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-request-"))
  contextFile = join(dir, "context.json")
  historyFile = join(dir, "history.json")
  await writeFile(contextFile, JSON.stringify(basicContext({ mcpServers: [] })))
  await writeFile(historyFile, JSON.stringify(mixedHistory().messages))
})

describe("promptline request", () => {
  it("prints the exact Anthropic body: the built system prompt, native tools and the history", async () => {
    const r = await runCli(["request", "--context", contextFile, "--history", historyFile, "--format", "anthropic"])
    expect(r.code).toBe(0)
    const body = JSON.parse(r.stdout)
    const built = new PromptBuilder().build(basicContext({ mcpServers: [] }))
    expect(body.model).toBe("claude-sonnet-4-5")
    expect(body.system[0].text).toBe(built.text)
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(built.tools.map((t) => t.name))
    expect(body.messages).toHaveLength(9)
    expect(body.messages[0].content[0].text).toBe(built.contextMessage)
    expect(body.stream).toBe(true)
    // The synthetic result is a warning worth seeing; informational lines need --verbose.
    expect(r.stderr).toContain("[tool-result-missing]")
    expect(r.stderr).not.toContain("info ")
  })

  it("follows --format and --model, with the model's own format by default", async () => {
    const chat = JSON.parse(
      (
        await runCli([
          "request",
          ...["--context", contextFile, "--model", "gpt-4.1", "--format", "openai-chat", "--tool-calling", "native"],
        ])
      ).stdout,
    )
    expect(chat.model).toBe("gpt-4.1")
    expect(chat.messages[0].role).toBe("system")
    expect(chat.tools[0].type).toBe("function")
    const gemini = JSON.parse((await runCli(["request", "--context", contextFile, "--model", "gemini-2.5-pro"])).stdout)
    expect(gemini.systemInstruction.parts[0].text.length).toBeGreaterThan(100)
    expect(gemini.tools[0].functionDeclarations.length).toBeGreaterThan(0)
  })

  it("writes calls as XML with --tool-calling xml, and sends no tools", async () => {
    const r = await runCli([
      "request",
      ...["--context", contextFile, "--history", historyFile, "--format", "openai-chat", "--tool-calling", "xml"],
    ])
    const body = JSON.parse(r.stdout)
    expect(body.tools).toBeUndefined()
    expect(JSON.stringify(body.messages)).toContain("<read_file>\\n<path>src/sum.ts</path>\\n</read_file>")
  })

  it("--json adds diagnostics and cache breakpoints; options reach the body", async () => {
    const r = await runCli([
      "request",
      ...["--context", contextFile, "--history", historyFile, "--format", "anthropic", "--json"],
      ...["--max-tokens", "4000", "--thinking-budget", "2048", "--cache-ttl", "1h", "--no-stream"],
    ])
    const result = JSON.parse(r.stdout)
    expect(result.format).toBe("anthropic")
    expect(result.body.max_tokens).toBe(4000)
    expect(result.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 })
    expect(result.body.stream).toBe(false)
    expect(result.body.system[0].cache_control).toEqual({ type: "ephemeral", ttl: "1h" })
    expect(result.breakpoints.filter((b: { placed: boolean }) => b.placed)).toHaveLength(3)
    expect(result.diagnostics.map((d: { code: string }) => d.code)).toContain("tool-id-rewritten")
  })

  it("reads promptline's own history that opens with an assistant's tool call (not as an Anthropic body)", async () => {
    const own = join(dir, "own.json")
    await writeFile(
      own,
      JSON.stringify([
        { id: "a1", role: "assistant", ts: 1, content: [{ type: "tool_use", id: "c1", name: "read_file", input: {} }] },
        { id: "u1", role: "user", ts: 2, content: [{ type: "tool_result", toolUseId: "c1", content: "x" }] },
      ]),
    )
    for (const command of [
      ["request", "--context", contextFile, "--history", own, "--format", "anthropic"],
      ["fit", "--history", own, "--model", "claude-sonnet-5-5", "--json"],
    ]) {
      const r = await runCli(command)
      // Only the context model's deprecation (Claude Sonnet 4.5 on 2026-11-29) is said; no error about the history.
      expect({ code: r.code, stderr: r.stderr.replace(/^warning .*\[model-deprecated\]\n/m, "") }, command[0]).toEqual({
        code: 0,
        stderr: "",
      })
    }
    const body = JSON.parse((await runCli(["request", "--context", contextFile, "--history", own])).stdout)
    expect(body.messages.at(-1).content[0]).toMatchObject({ type: "tool_result", tool_use_id: "c1" })
  })

  it("reports a bad option or a bad history file in one line", async () => {
    const bad = await runCli(["request", "--context", contextFile, "--max-tokens", "lots"])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toBe('promptline: --max-tokens must be a positive integer (got "lots")\n')
    const broken = join(dir, "broken.json")
    await writeFile(broken, '[{"id": "m1", "role": "robot", "content": [], "ts": 1}]')
    const r = await runCli(["request", "--context", contextFile, "--history", broken])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("broken.json")
    expect(r.stdout).toBe("")
  })
})
