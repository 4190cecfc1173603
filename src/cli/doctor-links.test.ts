import { realpath, symlink } from "node:fs/promises"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { cleanup, tempDir, writeTree } from "../context/test-helpers/workspace.js"
import { main } from "./main.js"

let ws: string
let home: string
let outside: string
beforeEach(async () => {
  ws = await realpath(await tempDir())
  home = await realpath(await tempDir("promptline-home-"))
  outside = await realpath(await tempDir("promptline-outside-"))
  await writeTree(outside, { passwd: "root:x:0:0\n" })
})
afterEach(async () => {
  for (const dir of [ws, home, outside]) await cleanup(dir)
})

describe("promptline doctor and symbolic links", () => {
  it("shows an AGENTS.md linked out of the workspace as skipped, with a warning naming where it leads", async () => {
    await symlink(join(outside, "passwd"), join(ws, "AGENTS.md"))
    let out = ""
    const io = {
      stdout: (t: string) => {
        out += t
      },
      stderr: () => {},
      cwd: ws,
      env: { HOME: home },
      today: () => "2025-06-01",
    }
    await main(["doctor", "--trust", "--no-mcp"], io)
    expect(out).toMatch(/ {2}skipped {5}AGENTS\.md +agents-md · a symbolic link to .*passwd, outside the workspace/)
    expect(out).not.toMatch(/ {2}loaded +AGENTS\.md/)
    expect(out).toMatch(/warning AGENTS\.md: refused: a symbolic link to .*passwd.* \[link-outside\]/)
  })
})
