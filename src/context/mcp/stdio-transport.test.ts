import { afterEach, describe, expect, it } from "vitest"
import { cleanup, EVERYTHING_SERVER, tempDir } from "../test-helpers/workspace.js"
import { McpConnectError, McpConnection } from "./client.js"
import { snapshotServers } from "./snapshot.js"
import { processesRunning, shellScript, stdioConfig } from "./test-helpers.js"

const linux = process.platform === "linux"
const dirs: string[] = []
const sleeps: string[] = []

/** A folder for this test's scripts, removed afterwards. */
async function folder(): Promise<string> {
  const dir = await tempDir("promptline-mcp-proc-")
  dirs.push(dir)
  return dir
}

/** `sleep N` with a duration no other test uses, so its processes can be found in /proc. */
function sleep(seconds: number): string {
  const command = `sleep ${seconds}`
  sleeps.push(command)
  return command
}

afterEach(async () => {
  // Whatever a failing test left running is killed here, so one failure does not leak processes.
  for (const command of sleeps.splice(0)) for (const pid of processesRunning(command)) process.kill(pid, "SIGKILL")
  for (const dir of dirs.splice(0)) await cleanup(dir)
})

describe.runIf(linux)("stdio MCP servers that start other processes", () => {
  it("times out a wrapper script whose child never answers, and leaves none of its processes", async () => {
    const dir = await folder()
    const script = await shellScript(dir, "hang.sh", sleep(321))
    const result = await snapshotServers([stdioConfig("hang", script, [])], { timeoutMs: 500, cwd: dir })
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: "mcp-server-timeout",
        message: expect.stringMatching(/^MCP server `hang`: no answer within 0\.5 s\. /),
      }),
    ])
    expect(processesRunning("sleep 321")).toEqual([])
  })

  it("stops a wrapper's backgrounded and setsid grandchildren when it times out", async () => {
    const dir = await folder()
    const body = [`${sleep(322)} &`, `setsid ${sleep(323)} &`, sleep(324)].join("\n")
    const script = await shellScript(dir, "spawner.sh", body)
    const result = await snapshotServers([stdioConfig("spawner", script, [])], { timeoutMs: 500, cwd: dir })
    expect(result.diagnostics.map((d) => d.code)).toEqual(["mcp-server-timeout"])
    for (const command of ["sleep 322", "sleep 323", "sleep 324"]) expect(processesRunning(command)).toEqual([])
  })

  it("stops a working server's setsid grandchild when the connection closes", async () => {
    const dir = await folder()
    const script = await shellScript(dir, "wrapper.sh", `setsid ${sleep(325)} >/dev/null 2>&1 &\nexec "$@"`)
    const config = stdioConfig("wrapped", script, [process.execPath, EVERYTHING_SERVER, "stdio"])
    const connection = await McpConnection.open(config, { timeout: 20_000, cwd: dir, graceMs: 500 })
    try {
      expect((await connection.snapshot()).tools.map((t) => t.name)).toContain("echo")
      expect(processesRunning("sleep 325")).toHaveLength(1)
    } finally {
      await connection.close()
    }
    expect(processesRunning("sleep 325")).toEqual([])
    expect(processesRunning(EVERYTHING_SERVER)).toEqual([])
  })

  it("ends the handshake when the server exits while a grandchild holds its output, and stops the grandchild", async () => {
    const dir = await folder()
    const script = await shellScript(dir, "quits.sh", `${sleep(326)} &\necho giving up >&2\nexit 3`)
    const error = await McpConnection.open(stdioConfig("quits", script, []), { timeout: 5000, cwd: dir }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(McpConnectError)
    expect(error).toMatchObject({ stderr: "giving up" })
    expect((error as Error).message).toMatch(/connection closed/i)
    expect(processesRunning("sleep 326")).toEqual([])
  })
})
