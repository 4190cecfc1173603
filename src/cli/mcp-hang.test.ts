import { afterEach, describe, expect, it } from "vitest"
import { processesRunning, shellScript } from "../context/mcp/test-helpers.js"
import { cleanup, tempDir, writeTree } from "../context/test-helpers/workspace.js"
import { runCli } from "./test-helpers/run.js"

const dirs: string[] = []
afterEach(async () => {
  for (const command of ["sleep 328", "sleep 329", "sleep 330"])
    for (const pid of processesRunning(command)) process.kill(pid, "SIGKILL")
  for (const dir of dirs.splice(0)) await cleanup(dir)
})

/** A workspace whose promptline MCP config names one wrapper-script server with a half-second timeout. */
async function hangingWorkspace(body: string): Promise<{ cwd: string; home: string }> {
  const cwd = await tempDir("promptline-cli-mcp-")
  const home = await tempDir("promptline-cli-home-")
  dirs.push(cwd, home)
  const script = await shellScript(cwd, "server.sh", body)
  await writeTree(cwd, {
    ".promptline/mcp.json": JSON.stringify({ mcpServers: { hang: { command: script, timeout: 0.5 } } }),
  })
  return { cwd, home }
}

describe.runIf(process.platform === "linux")("the CLI with an MCP server that never answers", () => {
  for (const command of ["doctor", "prompt"]) {
    it(`\`${command}\` reports the timeout, returns, and leaves no process of the server`, async () => {
      const { cwd, home } = await hangingWorkspace("sleep 328 &\nsetsid sleep 329 &\nsleep 330")
      const env = { PATH: process.env.PATH, HOME: home, SHELL: "/bin/sh" }
      const result = await runCli([command, "--cwd", cwd, "--trust"], { cwd, env })
      expect(`${result.stdout}${result.stderr}`).toContain(
        "MCP server `hang`: no answer within 0.5 s. Raise its `timeout` setting (seconds) in .promptline/mcp.json.",
      )
      for (const sleep of ["sleep 328", "sleep 329", "sleep 330"]) expect(processesRunning(sleep)).toEqual([])
    })
  }
})
