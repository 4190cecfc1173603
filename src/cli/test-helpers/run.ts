import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sessionsDir } from "../../agent/session.js"
import { main } from "../main.js"

/**
 * The state folder every CLI test run gets unless its environment names one (`XDG_STATE_HOME`): sessions of
 * `promptline run` go there, never into the real user's state folder.
 */
export const TEST_STATE_HOME = mkdtempSync(join(tmpdir(), "pl-cli-state-"))

/** Where `promptline run` keeps a workspace's sessions in CLI tests (see TEST_STATE_HOME). */
export const testSessionsDir = (workspace: string): string =>
  sessionsDir(workspace, { env: { XDG_STATE_HOME: TEST_STATE_HOME } })

/** Runs the CLI in-process with captured output. */
export async function runCli(
  argv: string[],
  options: {
    cwd?: string
    env?: Record<string, string | undefined>
    today?: string
    /** A terminal of this many columns on stdout (`isTTY` and `columns`). */
    columns?: number
    /** The clock's reading (milliseconds since the epoch). */
    now?: number
  } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ""
  let stderr = ""
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
    cwd: options.cwd ?? process.cwd(),
    env: { XDG_STATE_HOME: TEST_STATE_HOME, ...(options.env ?? { PATH: process.env.PATH, SHELL: "/bin/bash" }) },
    today: () => options.today ?? "2026-11-29",
    ...(options.columns !== undefined ? { isTTY: true, columns: options.columns } : {}),
    ...(options.now !== undefined ? { now: () => options.now! } : {}),
  })
  return { code, stdout, stderr }
}
