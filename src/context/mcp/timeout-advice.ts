import { basename } from "node:path"
import type { McpServerConfig } from "./config.js"

/** Commands that fetch a package before running it: a server's first start through them may download for a while. */
const PACKAGE_RUNNERS = new Set(["npx", "bunx", "pnpx", "uvx"])

/** Seconds as a person reads them: `10 s`, `1.5 s`. */
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1)).toLocaleString("en-US")} s`

/** How a stdio server is started through a package runner (`npx -y`, `uvx`, `pnpm dlx`), if it is. */
function packageRunner(config: Pick<McpServerConfig, "command" | "args">): string | undefined {
  if (!config.command) return undefined
  const command = basename(config.command).replace(/\.(cmd|exe)$/i, "")
  if (PACKAGE_RUNNERS.has(command)) {
    const yes = config.args.find((a) => a === "-y" || a === "--yes")
    return yes ? `${command} ${yes}` : command
  }
  if ((command === "pnpm" || command === "yarn" || command === "bun") && config.args[0] === "dlx")
    return `${command} dlx`
  return undefined
}

/** promptline's own MCP file for a server's scope: where its per-server `timeout` is read. */
export function timeoutFile(scope: McpServerConfig["scope"]): string {
  return scope === "project" ? ".promptline/mcp.json" : "~/.config/promptline/mcp.json"
}

/**
 * What to say when a server gave no answer within `limitMs`: the limit, the likely cause when it is started
 * through a package runner (its first start downloads the package), and the `timeout` setting that gives it
 * more time, with the file it goes in.
 */
export function timeoutAdvice(config: McpServerConfig, limitMs: number): { said: string; advice: string } {
  const runner = packageRunner(config)
  const cause = runner
    ? ` The first start through \`${runner}\` downloads the package, which often takes longer than that.`
    : ""
  const more = Math.max(60, Math.ceil((limitMs * 3) / 1000))
  const setting =
    config.timeoutMs !== undefined
      ? ` Raise its \`timeout\` setting (seconds) in ${config.timeoutSource ?? config.source}.`
      : config.format === "promptline"
        ? ` Give it more time with the per-server \`timeout\` setting: add "timeout": ${more} (seconds) to its entry in ${config.source}.`
        : ` Give it more time with the per-server \`timeout\` setting (seconds), read from promptline's own file: add { "mcpServers": { ${JSON.stringify(config.name)}: { "timeout": ${more} } } } to ${timeoutFile(config.scope)}; the server stays as ${config.source} declares it.`
  return { said: `no answer within ${seconds(limitMs)}`, advice: `${cause}${setting}`.trim() }
}
