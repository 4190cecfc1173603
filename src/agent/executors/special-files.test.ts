import { execFileSync } from "node:child_process"
import { lstat } from "node:fs/promises"
import { createServer, type Server } from "node:net"
import path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"

/**
 * Every executor that writes refuses a path that is not a regular file: an atomic write (a temporary file renamed
 * over the target) would otherwise replace a named pipe or a socket with a regular file, and a read of a FIFO hangs.
 */

let ws: TempWorkspace
const servers: Server[] = []
beforeEach(async () => {
  ws = await tempWorkspace()
})
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve))
  await ws.dispose()
})

/** Makes a special file of each kind the tools may meet in a workspace. */
async function special(kind: "fifo" | "socket", name: string): Promise<string> {
  const file = path.join(ws.root, name)
  if (kind === "fifo") execFileSync("mkfifo", [file])
  else {
    const server = createServer()
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(file, resolve))
  }
  return file
}

const WRITERS = {
  write_to_file: (p: string) => ({ path: p, content: "x\n" }),
  replace_in_file: (p: string) => ({ path: p, diff: "<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE" }),
  apply_patch: (p: string) => ({ input: `*** Begin Patch\n*** Update File: ${p}\n@@\n+x\n*** End Patch` }),
} as const

describe.runIf(process.platform !== "win32")("the tools that write refuse special files", () => {
  for (const kind of ["fifo", "socket"] as const) {
    for (const [tool, args] of Object.entries(WRITERS)) {
      it(`${tool} refuses a ${kind} and leaves it as it was`, async () => {
        const file = await special(kind, `thing-${kind}`)
        const out = await ws.run(tool, args(`thing-${kind}`))
        expect(out.isError, textOf(out)).toBe(true)
        expect(textOf(out)).toContain(
          kind === "fifo" ? "is a named pipe (FIFO), not a regular file" : "is a socket, not a regular file",
        )
        const info = await lstat(file)
        expect(kind === "fifo" ? info.isFIFO() : info.isSocket()).toBe(true)
      })
    }
  }

  // The tools that read say what is there instead of opening it (a read of a FIFO would wait for a writer).
  const READERS = {
    read_file: (p: string) => ({ path: p }),
    search_files: (p: string) => ({ path: p, regex: "x" }),
    list_code_definition_names: (p: string) => ({ path: p }),
    list_files: (p: string) => ({ path: p }),
  } as const
  for (const kind of ["fifo", "socket"] as const) {
    for (const [tool, args] of Object.entries(READERS)) {
      it(`${tool} refuses a ${kind}, naming what it is`, async () => {
        await special(kind, `thing-${kind}`)
        const out = await ws.run(tool, args(`thing-${kind}`))
        expect(out.isError, textOf(out)).toBe(true)
        expect(textOf(out)).toContain(`thing-${kind} is ${kind === "fifo" ? "a named pipe (FIFO)" : "a socket"}, not a`)
      })
    }
  }

  it("a link to a FIFO is refused the same way (the write would go through the link)", async () => {
    await special("fifo", "pipe")
    const { symlink } = await import("node:fs/promises")
    await symlink("pipe", path.join(ws.root, "link"))
    for (const [tool, args] of Object.entries(WRITERS)) {
      const out = await ws.run(tool, args("link"))
      expect(out.isError, tool).toBe(true)
      expect(textOf(out), tool).toContain("named pipe (FIFO)")
    }
    expect((await lstat(path.join(ws.root, "pipe"))).isFIFO()).toBe(true)
  })
})
