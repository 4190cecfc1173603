/** Where a command writes; tests pass buffers, the bin passes the process streams. */
export interface CliIO {
  stdout: (text: string) => void
  stderr: (text: string) => void
  /** Working directory the command runs in. */
  cwd: string
  env: Record<string, string | undefined>
  /** Today's date (YYYY-MM-DD) for commands that need one; read once at the edge. */
  today: () => string
}

/** The IO of the real process. */
export function processIO(): CliIO {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    today: () => {
      const d = new Date()
      const pad = (n: number) => String(n).padStart(2, "0")
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
    },
  }
}
