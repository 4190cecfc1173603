/**
 * Snapshots the `tools/list` of real MCP servers into test/fixtures/tool-search/<server>.json, for the
 * tool-search benchmark. The servers are not dependencies of promptline: install them into a folder outside
 * the repository first, then pass that folder:
 *
 *   npm install --ignore-scripts --prefix <folder> @modelcontextprotocol/server-github ...
 *   node --import tsx bench/tool-search-snapshot.ts <folder> [server names, default all]
 *
 * Each server starts over stdio with dummy keys (no listing needs a real account).
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

interface ServerRun {
  name: string
  /** The package's bin, looked up in <folder>/node_modules/.bin (or the repository's for server-everything). */
  bin: string
  args?: string[]
  env?: Record<string, string>
  local?: boolean
  /**
   * Text the server writes from the machine it runs on (not from its package), cut from the descriptions so the
   * snapshot holds no machine's paths.
   */
  machineText?: RegExp
}

const DUMMY = "dummy-key-for-listing-only"
const scratch = mkdtempSync(join(tmpdir(), "promptline-fs-"))

const SERVERS: ServerRun[] = [
  { name: "everything", bin: "mcp-server-everything", args: ["stdio"], local: true },
  { name: "filesystem", bin: "mcp-server-filesystem", args: [scratch] },
  { name: "memory", bin: "mcp-server-memory", env: { MEMORY_FILE_PATH: join(scratch, "memory.jsonl") } },
  { name: "github", bin: "mcp-server-github", env: { GITHUB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { name: "gitlab", bin: "mcp-server-gitlab", env: { GITLAB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { name: "slack", bin: "mcp-server-slack", env: { SLACK_BOT_TOKEN: DUMMY, SLACK_TEAM_ID: "T000" } },
  { name: "google-maps", bin: "mcp-server-google-maps", env: { GOOGLE_MAPS_API_KEY: DUMMY } },
  { name: "brave-search", bin: "mcp-server-brave-search", env: { BRAVE_API_KEY: DUMMY } },
  { name: "notion", bin: "notion-mcp-server", env: { NOTION_TOKEN: DUMMY } },
  { name: "playwright", bin: "playwright-mcp", args: ["--headless"] },
  { name: "sequential-thinking", bin: "mcp-server-sequential-thinking" },
  { name: "puppeteer", bin: "mcp-server-puppeteer" },
  { name: "ea-playwright", bin: "playwright-mcp-server" },
  { name: "chrome-devtools", bin: "chrome-devtools-mcp", args: ["--headless", "--isolated"] },
  { name: "fetch", bin: "mcp-fetch-server" },
  { name: "firecrawl", bin: "firecrawl-mcp", env: { FIRECRAWL_API_KEY: DUMMY } },
  { name: "postgres", bin: "mcp-server-postgres", args: ["postgresql://127.0.0.1:1/listing"] },
  { name: "linear", bin: "linear-mcp-server", env: { LINEAR_API_KEY: DUMMY } },
  { name: "mongodb", bin: "mongodb-mcp-server" },
  {
    name: "jira",
    bin: "mcp-atlassian-jira",
    env: { ATLASSIAN_SITE_NAME: "listing", ATLASSIAN_USER_EMAIL: "listing@example.com", ATLASSIAN_API_TOKEN: DUMMY },
  },
  { name: "trello", bin: "mcp-server-trello", env: { TRELLO_API_KEY: DUMMY, TRELLO_TOKEN: DUMMY } },
  { name: "git", bin: "git-mcp-server", env: { MCP_TRANSPORT_TYPE: "stdio" } },
  {
    name: "desktop-commander",
    bin: "desktop-commander",
    // In a container it describes the container and its mount points, from a whale emoji to the next paragraph
    // that is about the tool again.
    machineText: /\n\n\u{1F433} [^\n]*(?:\n(?!\s*(?:This command can be referenced|LINUX-SPECIFIC))[^\n]*)*/gu,
  },
  { name: "tavily", bin: "tavily-mcp", env: { TAVILY_API_KEY: DUMMY } },
  { name: "context7", bin: "context7-mcp" },
  { name: "sentry", bin: "sentry-mcp", args: [`--access-token=${DUMMY}`] },
  { name: "kubernetes", bin: "mcp-server-kubernetes" },
  { name: "circleci", bin: "mcp-server-circleci", env: { CIRCLECI_TOKEN: DUMMY } },
]

async function snapshot(run: ServerRun, folder: string, out: string): Promise<number> {
  const root = run.local ? process.cwd() : folder
  const transport = new StdioClientTransport({
    command: join(root, "node_modules", ".bin", run.bin),
    args: run.args ?? [],
    env: { PATH: process.env.PATH ?? "", HOME: scratch, ...run.env },
    stderr: "ignore",
  })
  const client = new Client({ name: "promptline-snapshot", version: "0.1.0" })
  await client.connect(transport)
  try {
    const tools: unknown[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor ? { cursor } : {})
      for (const t of page.tools) {
        const description = run.machineText ? t.description?.replace(run.machineText, "") : t.description
        tools.push({ name: t.name, description, inputSchema: t.inputSchema })
      }
      cursor = page.nextCursor
    } while (cursor)
    writeFileSync(join(out, `${run.name}.json`), `${JSON.stringify({ name: run.name, tools }, null, 2)}\n`)
    return tools.length
  } finally {
    await client.close()
  }
}

const folder = process.argv[2]
if (!folder) {
  process.stderr.write("usage: bench/tool-search-snapshot.ts <folder where the servers are installed>\n")
  process.exit(2)
}
const only = process.argv.slice(3)
const out = join(process.cwd(), "test", "fixtures", "tool-search")
for (const run of SERVERS.filter((r) => only.length === 0 || only.includes(r.name))) {
  try {
    const n = await snapshot(run, folder, out)
    process.stdout.write(`${run.name}: ${n} tools\n`)
  } catch (error) {
    process.stdout.write(`${run.name}: failed (${(error as Error).message})\n`)
  }
}
