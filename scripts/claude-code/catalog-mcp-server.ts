// An MCP server over stdio with every tool of the tool-search fixtures (456 tools of 28 real servers' tools/list snapshots),
// named `<server>__<tool>`; each call is appended as a JSON line to the file MCP_CALL_LOG names and answered with a
// short text. Used by claude-code-deferred-tools.ts, which runs Claude Code with it.
import { appendFileSync } from "node:fs"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { loadToolSearchServers } from "../../test/fixtures/tool-search/load.js"

const log = process.env.MCP_CALL_LOG
const tools = loadToolSearchServers().flatMap((s) =>
  s.tools.map((t) => ({ ...t, name: `${s.name.replaceAll("-", "_")}__${t.name}` })),
)
const server = new Server({ name: "catalog", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (log)
    appendFileSync(log, `${JSON.stringify({ name: request.params.name, arguments: request.params.arguments })}\n`)
  return { content: [{ type: "text", text: `${request.params.name} ran.` }] }
})
await server.connect(new StdioServerTransport())
