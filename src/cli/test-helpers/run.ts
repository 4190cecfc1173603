import { main } from "../main.js"

/** Runs the CLI in-process with captured output. */
export async function runCli(
  argv: string[],
  options: {
    cwd?: string
    env?: Record<string, string | undefined>
    today?: string
    /** A terminal of this many columns on stdout (`isTTY` and `columns`). */
    columns?: number
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
    env: options.env ?? { PATH: process.env.PATH, SHELL: "/bin/bash" },
    today: () => options.today ?? "2026-11-29",
    ...(options.columns !== undefined ? { isTTY: true, columns: options.columns } : {}),
  })
  return { code, stdout, stderr }
}
