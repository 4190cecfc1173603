import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { parseReplayScript, type ReplayScript, type ReplayScriptInput } from "../script.js"

/** The recorded provider streams (`test/fixtures/streams`). */
const STREAMS = fileURLToPath(new URL("../../../test/fixtures/streams/", import.meta.url))

/** The payloads of a recorded stream, one parsed JSON value per line. */
export function recordedStream(folder: string, file: string): Record<string, unknown>[] {
  return readFileSync(`${STREAMS}${folder}/${file}`, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** Event kinds in order, runs of the same kind collapsed (deltas vary in number, not in kind). */
export function kindSequence(events: readonly unknown[], kindOf: (event: Record<string, unknown>) => string): string[] {
  const out: string[] = []
  for (const event of events) {
    const kind = kindOf(event as Record<string, unknown>)
    if (kind === "" || out.at(-1) === kind) continue
    out.push(kind)
  }
  return out
}

/** Every key path (`a.b[].c`) of a JSON value, for comparing payload shapes. */
export function keyPaths(value: unknown, prefix = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => keyPaths(item, `${prefix}[]`))
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([key, child]) => {
    const path = prefix === "" ? key : `${prefix}.${key}`
    return [path, ...keyPaths(child, path)]
  })
}

/** A tool turn that exercises everything a turn can carry: thinking, text with non-ASCII, two calls, usage. */
export const richTurn = {
  thinking: "The file should be read first, then the tests run.",
  text: "Reading the file — ünïcödé 🎉 and <angle> brackets.",
  toolCalls: [
    { name: "read_file", input: { path: "src/a.ts", start_line: 1, end_line: 40 } },
    { name: "execute_command", input: { command: "npm test -- --grep 'a b'", requires_approval: false, timeout: 30 } },
  ],
  usage: { input: 120, output: 45, cacheRead: 1000, cacheWrite: 200, reasoning: 10 },
}

/** The closing turn of the sample script. */
export const finalTurn = { text: "All tests pass now.", usage: { input: 300, output: 8 } }

/** JSON Schema of the sample tools. */
export const sampleParameters = {
  type: "object",
  properties: {
    path: { type: "string" },
    command: { type: "string" },
    start_line: { type: "number" },
    end_line: { type: "number" },
    requires_approval: { type: "boolean" },
    timeout: { type: "number" },
  },
} as const

/** A script from turns written inline. */
export function scriptOf(...turns: ReplayScriptInput["turns"]): ReplayScript {
  return parseReplayScript({ version: 1, turns })
}
