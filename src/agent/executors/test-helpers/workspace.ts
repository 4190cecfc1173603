import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import { execute } from "../index.js"
import type { ExecutorEnv, ToolOutcome } from "../types.js"

/** A temporary folder for one test, with helpers to write and read files in it. */
export interface TempWorkspace {
  root: string
  write(file: string, content: string | Uint8Array): Promise<string>
  read(file: string): Promise<string>
  env(extra?: Partial<ExecutorEnv>): ExecutorEnv
  run(name: string, input: unknown, extra?: Partial<ExecutorEnv>): Promise<ToolOutcome>
  dispose(): Promise<void>
}

/** Creates a temporary workspace (its real path, so symlinked temp folders do not confuse checks). */
export async function tempWorkspace(prefix = "promptline-exec-"): Promise<TempWorkspace> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), prefix)))
  const ws: TempWorkspace = {
    root,
    async write(file, content) {
      const target = path.join(root, file)
      await mkdir(path.dirname(target), { recursive: true })
      await writeFile(target, content)
      return target
    },
    read: (file) => readFile(path.join(root, file), "utf8"),
    env: (extra = {}) => ({ workspace: root, ...extra }),
    run: (name, input, extra) => execute({ id: "call_1", name, input }, ws.env(extra)),
    dispose: () => rm(root, { recursive: true, force: true }),
  }
  return ws
}

/** The text of an outcome's content. */
export function textOf(outcome: ToolOutcome): string {
  if (typeof outcome.content === "string") return outcome.content
  return outcome.content.map((b) => (b.type === "text" ? b.text : `[image ${b.mediaType}]`)).join("\n")
}
