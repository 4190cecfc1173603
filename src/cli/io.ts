import { randomBytes } from "node:crypto"
import { localDate } from "../context/local-date.js"

/** Where a command writes; tests pass buffers, the bin passes the process streams. */
export interface CliIO {
  stdout: (text: string) => void
  stderr: (text: string) => void
  /** Working directory the command runs in. */
  cwd: string
  env: Record<string, string | undefined>
  /** Today's date (YYYY-MM-DD) for commands that need one; read once at the edge. */
  today: () => string
  /** Reads one line of the person's answer; absent when nobody is at a terminal. */
  question?: (prompt: string, signal?: AbortSignal) => Promise<string>
  /** Milliseconds since the epoch (the clock, read at the edge). */
  now?: () => number
  /** A fresh random secret each call (`launch`'s gateway token), read at the edge. */
  secret?: () => string
  /** Whether stdout is a terminal (colors on); absent means not a terminal. */
  isTTY?: boolean
  /** The terminal's width in columns, read at the edge; absent when stdout is not a terminal. */
  columns?: number
}

/** Asks on the terminal and reads one line. */
async function terminalQuestion(prompt: string, signal?: AbortSignal): Promise<string> {
  const { createInterface } = await import("node:readline/promises")
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    return await rl.question(prompt, signal ? { signal } : {})
  } finally {
    rl.close()
  }
}

/** A reader that went away (`promptline prompt | head`) ends the command quietly, as other Unix tools do. */
function endOnClosedPipe(error: NodeJS.ErrnoException): void {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0)
  throw error
}

/** The IO of the real process. */
export function processIO(): CliIO {
  if (!process.stdout.listeners("error").includes(endOnClosedPipe)) process.stdout.on("error", endOnClosedPipe)
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    today: () => localDate(),
    now: () => Date.now(),
    secret: () => randomBytes(32).toString("base64url"),
    isTTY: process.stdout.isTTY === true,
    ...(process.stdout.isTTY && process.stdout.columns > 0 ? { columns: process.stdout.columns } : {}),
    ...(process.stdin.isTTY ? { question: terminalQuestion } : {}),
  }
}
