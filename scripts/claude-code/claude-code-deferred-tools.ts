// The real Claude Code through the gateway in translate mode, with the 456 MCP tools of the tool-search fixtures, to an OpenAI Chat upstream that a
// scripted model plays on 127.0.0.1. Run twice: with tool search on (ENABLE_TOOL_SEARCH=true: Claude Code defers its
// MCP tools and finds them with its own ToolSearch tool, whose results reference tools; the gateway loads those for
// the upstream) and off (every MCP tool sent on every request). Prints, for each upstream request that carried tools,
// how many and their tokens (promptline's counter, gpt-4.1), and the calls the MCP server ran.
//
//   node --import tsx scripts/claude-code/claude-code-deferred-tools.ts CLAUDE_BINARY
//
// CLAUDE_BINARY is the `claude` executable of @anthropic-ai/claude-code (installed apart, in a temporary folder). No
// network but loopback: Claude Code talks to the gateway, the gateway to the scripted upstream.
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startGateway } from "../../src/gateway/server.js"
import { overheadOf, TokenCounter } from "../../src/history/tokens.js"
import { resolveModel } from "../../src/models/resolve.js"
import { formatModule } from "../../src/providers/formats.js"
import type { StreamEvent } from "../../src/providers/stream.js"
import { SEARCH_TOOLS_NAME } from "../../src/tools/search/index.js"

const claude = process.argv[2]
if (!claude) {
  process.stderr.write("usage: claude-code-deferred-tools.ts CLAUDE_BINARY\n")
  process.exit(2)
}
const ISSUE_TOOL = "mcp__catalog__github__create_issue"
const chat = formatModule("openai-chat")
const model = resolveModel("gpt-4.1").model
const counter = await TokenCounter.create()

/** One upstream request as the scripted model saw it. */
interface Seen {
  tools: number
  tokens: number
  did: string
}

interface ChatMessage {
  role: string
  tool_call_id?: string
  tool_calls?: { id: string; function: { name: string } }[]
}

/** What the scripted model does with a request: a call (name and input) or text. */
function decide(body: { tools?: { function: { name: string } }[]; messages: ChatMessage[] }): {
  call?: { name: string; input: unknown }
  text?: string
} {
  const tools = new Set((body.tools ?? []).map((t) => t.function.name))
  const calls = new Map<string, string>()
  for (const m of body.messages) for (const c of m.tool_calls ?? []) calls.set(c.id, c.function.name)
  const answered = body.messages.filter((m) => m.role === "tool").map((m) => calls.get(m.tool_call_id ?? ""))
  if (answered.includes(ISSUE_TOOL)) return { text: "Opened the issue." }
  if (tools.has(ISSUE_TOOL))
    return {
      call: { name: ISSUE_TOOL, input: { owner: "acme", repo: "app", title: "Crash on start", body: "It crashes." } },
    }
  if (tools.has("ToolSearch") && !answered.includes("ToolSearch"))
    return { call: { name: "ToolSearch", input: { query: "github create issue", max_results: 3 } } }
  if (tools.has(SEARCH_TOOLS_NAME))
    return { call: { name: SEARCH_TOOLS_NAME, input: { query: "github create issue" } } }
  return { text: tools.size > 0 ? `No issue tool among ${tools.size} tools.` : "ok" }
}

/** The scripted OpenAI Chat upstream: answers each request as `decide` says, streamed, and notes what it saw. */
function upstream(seen: Seen[]) {
  let n = 0
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = ""
    req.on("data", (c: Buffer) => {
      raw += c.toString("utf8")
    })
    req.on("end", () => {
      const body = JSON.parse(raw)
      const decoded = chat.decodeRequest(body)
      const answer = decide(body)
      if (decoded.prompt.tools.length > 0)
        seen.push({
          tools: decoded.prompt.tools.length,
          tokens: counter.countTools(decoded.prompt.tools, model.tokenizer, overheadOf("openai-chat")),
          did: answer.call ? `calls ${answer.call.name}` : `answers "${answer.text}"`,
        })
      const id = `call_${++n}`
      const events: StreamEvent[] = [{ type: "start", id: `chatcmpl-${n}` }]
      if (answer.call)
        events.push(
          { type: "tool_call_start", id, name: answer.call.name },
          { type: "tool_call_delta", id, argsDelta: JSON.stringify(answer.call.input) },
          { type: "tool_call_end", id, input: answer.call.input },
        )
      else events.push({ type: "text", delta: answer.text ?? "" })
      events.push({ type: "usage", input: 1000, output: 10, cacheRead: 0, cacheWrite: 0 })
      events.push({ type: "stop", reason: answer.call ? "tool_use" : "end" })
      const encoder = chat.createStreamEncoder({ model: "gpt-4.1", includeUsage: true, created: 0 })
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.end(events.map((e) => encoder.push(e)).join("") + encoder.end())
    })
  })
}

/** Runs Claude Code once through a fresh gateway and upstream; resolves with what the upstream saw and the MCP calls. */
async function run(toolSearch: boolean): Promise<{ seen: Seen[]; calls: string[]; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), "promptline-cc-"))
  const seen: Seen[] = []
  const server = upstream(seen)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const upstreamUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  const gateway = await startGateway({
    config: {
      port: 0,
      upstreams: { chat: { provider: "openai", format: "openai-chat", baseUrl: upstreamUrl, keyEnv: "UPSTREAM_KEY" } },
      routes: [{ match: "*", upstream: "chat", model: "gpt-4.1", mode: "translate" }],
    },
    env: { UPSTREAM_KEY: "sk-local-scripted" },
  })
  const log = join(dir, "mcp-calls.jsonl")
  writeFileSync(log, "")
  const mcpServer = fileURLToPath(new URL("./catalog-mcp-server.ts", import.meta.url))
  const config = {
    mcpServers: {
      catalog: {
        type: "stdio",
        command: process.execPath,
        args: ["--import", import.meta.resolve("tsx"), mcpServer],
        env: { MCP_CALL_LOG: log },
      },
    },
  }
  writeFileSync(join(dir, "mcp.json"), JSON.stringify(config))
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    IS_SANDBOX: "1",
    ANTHROPIC_BASE_URL: gateway.urls.anthropic,
    ANTHROPIC_API_KEY: "sk-ant-local",
    ENABLE_TOOL_SEARCH: toolSearch ? "true" : "false",
    MCP_CONNECTION_NONBLOCKING: "false",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  }
  const args = ["-p", "Open an issue about the crash on start in acme/app.", "--mcp-config", join(dir, "mcp.json")]
  args.push("--model", "claude-sonnet-4-5", "--dangerously-skip-permissions")
  const output = await new Promise<string>((resolve) => {
    const child = spawn(claude!, args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8")
    })
    child.stderr.on("data", (c: Buffer) => {
      out += c.toString("utf8")
    })
    const timer = setTimeout(() => child.kill("SIGTERM"), 180_000)
    child.on("close", () => {
      clearTimeout(timer)
      resolve(out.trim())
    })
  })
  await gateway.close(0)
  server.close()
  const calls = readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l !== "")
  rmSync(dir, { recursive: true, force: true })
  return { seen, calls, output }
}

for (const toolSearch of [true, false]) {
  const { seen, calls, output } = await run(toolSearch)
  process.stdout.write(
    `\n## ENABLE_TOOL_SEARCH=${toolSearch}\n\n| upstream request | tools | tool tokens | the model |\n|--:|--:|--:|---|\n`,
  )
  for (const [i, s] of seen.entries())
    process.stdout.write(`| ${i + 1} | ${s.tools} | ${s.tokens.toLocaleString("en-US")} | ${s.did} |\n`)
  const total = seen.reduce((sum, s) => sum + s.tokens, 0)
  process.stdout.write(`\ntool tokens, all requests with tools: ${total.toLocaleString("en-US")}\n`)
  process.stdout.write(`MCP server calls: ${calls.length === 0 ? "none" : calls.join(" ")}\n`)
  process.stdout.write(`Claude Code said: ${output.split("\n").at(-1)}\n`)
}
