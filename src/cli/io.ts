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
  /** Whether stdout is a terminal (colors on); absent means not a terminal. */
  isTTY?: boolean
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

/** The IO of the real process. */
export function processIO(): CliIO {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    today: () => localDate(),
    now: () => Date.now(),
    isTTY: process.stdout.isTTY === true,
    ...(process.stdin.isTTY ? { question: terminalQuestion } : {}),
  }
}
