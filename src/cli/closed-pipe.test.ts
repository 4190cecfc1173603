import { spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = join(dirname(fileURLToPath(import.meta.url)), "../..")

describe("a reader that goes away", () => {
  it("ends the command quietly with status 0, no stack trace (promptline prompt | head -1)", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        'const { main } = await import("./src/cli/main.ts"); process.exitCode = await main(["prompt", "--no-mcp"])',
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    )
    let stderr = ""
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString()
    })
    // Like `head -1`: read the first chunk, then close the pipe while the command is still writing.
    child.stdout.once("data", () => child.stdout.destroy())
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)))
    expect(stderr).not.toMatch(/EPIPE|at .*\(/)
    expect(code).toBe(0)
  }, 60_000)
})
