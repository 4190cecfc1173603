import { spawnSync } from "node:child_process"
import { cp, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import Anthropic from "@anthropic-ai/sdk"
import OpenAI from "openai"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { compilePattern, loadReplayScript, type ReplayScript, scriptWorkspace } from "./script.js"
import { type ReplayServer, startReplayServer } from "./server.js"

/**
 * The shipped example, checked against reality: its expectations match what `node --test` really
 * prints, and the whole task runs over the replay server in both tool dialects. The tool runner
 * here is a deliberately small stand-in (five tools, no confinement); the real executors and loop
 * live in src/agent/.
 */

const SCRIPT = fileURLToPath(new URL("../../examples/fix-failing-test.json", import.meta.url))
const TOOLS = ["list_files", "read_file", "execute_command", "replace_in_file", "attempt_completion"]

let script: ReplayScript
let server: ReplayServer | undefined
beforeAll(async () => {
  script = await loadReplayScript(SCRIPT)
})
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function copyWorkspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "replay-example-"))
  await cp(scriptWorkspace(script, SCRIPT)!, dir, { recursive: true })
  return dir
}

function runTests(cwd: string): string {
  const run = spawnSync("node --test", { cwd, shell: true, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } })
  return `${run.stdout}${run.stderr}\nexit code ${run.status}`
}

function applyDiff(content: string, diff: string): string {
  const block = /<<<<<<< SEARCH\n([\s\S]*?)\n=======\n([\s\S]*?)\n>>>>>>> REPLACE/.exec(diff)
  if (!block || !content.includes(block[1]!)) throw new Error("SEARCH block not found")
  return content.replace(block[1]!, block[2]!)
}

async function listFiles(root: string, dir = root): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))
  const out: string[] = []
  for (const e of entries) {
    const path = join(dir, e.name)
    out.push(`${relative(root, path)}${e.isDirectory() ? "/" : ""}`)
    if (e.isDirectory()) out.push(...(await listFiles(root, path)))
  }
  return out
}

/** Runs one tool call in the workspace; returns its result text, or undefined when the task is complete. */
async function runTool(cwd: string, name: string, input: Record<string, unknown>): Promise<string | undefined> {
  switch (name) {
    case "list_files":
      return (await listFiles(join(cwd, String(input.path)))).join("\n")
    case "read_file":
      return readFile(join(cwd, String(input.path)), "utf8")
    case "execute_command":
      expect(input.command).toBe("node --test")
      return runTests(cwd)
    case "replace_in_file": {
      const file = join(cwd, String(input.path))
      await writeFile(file, applyDiff(await readFile(file, "utf8"), String(input.diff)))
      return `Edited ${input.path}.`
    }
    case "attempt_completion":
      return undefined
    default:
      throw new Error(`unexpected tool ${name}`)
  }
}

describe("examples/fix-failing-test", () => {
  it("is a valid script whose expectations match what the real commands print", async () => {
    expect(script.turns.map((t) => t.toolCalls?.[0]?.name)).toEqual([
      "list_files",
      "execute_command",
      "read_file",
      "replace_in_file",
      "execute_command",
      "attempt_completion",
    ])
    const cwd = await copyWorkspace()
    const failing = runTests(cwd)
    expect(compilePattern(script.turns[2]!.expect!.toolResults![0]!.matches!).test(failing)).toBe(true)
    expect(compilePattern(script.turns[5]!.expect!.toolResults![0]!.matches!).test(failing)).toBe(false)
    const source = await readFile(join(cwd, "src/slugify.js"), "utf8")
    expect(compilePattern(script.turns[3]!.expect!.toolResults![0]!.matches!).test(source)).toBe(true)
    const diff = String(script.turns[3]!.toolCalls![0]!.input.diff)
    await writeFile(join(cwd, "src/slugify.js"), applyDiff(source, diff))
    const passing = runTests(cwd)
    expect(passing).toMatch(/exit code 0$/)
    expect(compilePattern(script.turns[5]!.expect!.toolResults![0]!.matches!).test(passing)).toBe(true)
  })

  it("runs the whole task with native tool calls (Anthropic Messages)", async () => {
    const cwd = await copyWorkspace()
    server = await startReplayServer({ script })
    const anthropic = new Anthropic({ apiKey: "replay", baseURL: server.urls.anthropic, maxRetries: 0 })
    const tools = TOOLS.map((name) => ({ name, input_schema: { type: "object" as const } }))
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: script.task! }]
    for (let turn = 0; turn < 10; turn++) {
      const reply = await anthropic.messages
        .stream({ model: "claude-haiku-4-5", max_tokens: 4096, tools, messages })
        .finalMessage()
      messages.push({ role: "assistant", content: reply.content })
      const results: Anthropic.ToolResultBlockParam[] = []
      let complete = false
      for (const block of reply.content) {
        if (block.type !== "tool_use") continue
        const result = await runTool(cwd, block.name, block.input as Record<string, unknown>)
        if (result === undefined) complete = true
        else results.push({ type: "tool_result", tool_use_id: block.id, content: result })
      }
      if (complete) break
      messages.push({ role: "user", content: results })
    }
    server.assertComplete()
    expect(runTests(cwd)).toMatch(/exit code 0$/)
  })

  it("runs the whole task with XML tool calls (OpenAI Chat, no tools declared)", async () => {
    const cwd = await copyWorkspace()
    server = await startReplayServer({ script })
    const openai = new OpenAI({ apiKey: "replay", baseURL: server.urls.openai, maxRetries: 0 })
    const system = `Call tools in XML. Tools: ${TOOLS.join(", ")}.`
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "system", content: system },
      { role: "user", content: script.task! },
    ]
    const call = new RegExp(`<(${TOOLS.join("|")})>\\n([\\s\\S]*?)\\n</\\1>`, "g")
    for (let turn = 0; turn < 10; turn++) {
      const reply = await openai.chat.completions.stream({ model: "qwen3-coder", messages }).finalChatCompletion()
      const text = reply.choices[0]!.message.content ?? ""
      messages.push({ role: "assistant", content: text })
      const results: string[] = []
      let complete = false
      for (const [, name, body] of text.matchAll(call)) {
        const input: Record<string, unknown> = {}
        for (const [, param, value] of body!.matchAll(/<(\w+)>([\s\S]*?)<\/\1>/g)) input[param!] = value
        const result = await runTool(cwd, name!, input)
        if (result === undefined) complete = true
        else results.push(`<tool_result tool="${name}">\n${result}\n</tool_result>`)
      }
      if (complete) break
      messages.push({ role: "user", content: results.join("\n\n") })
    }
    server.assertComplete()
    expect(server.requests.every((r) => r.outcome === "answered")).toBe(true)
    expect(runTests(cwd)).toMatch(/exit code 0$/)
  })
})
