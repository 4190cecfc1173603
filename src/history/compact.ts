import { type CompactionEdit, isSummaryId } from "./edits.js"
import { type Message, textOf } from "./message.js"
import { userRequests } from "./requests.js"

/**
 * The structured summary of staged compaction's second stage. The original task and the latest user
 * request are copied verbatim from the history (never left to the model); the model writes the rest
 * under fixed headings; files touched and the last error are completed from the condensed messages.
 */
export interface Summary {
  /** The original task, verbatim. */
  task: string
  /** The latest user request in the condensed messages, verbatim, when it is not the task. */
  latestRequest: string
  constraints: string[]
  progress: string[]
  decisions: string[]
  /** Files created, changed or read, each with its state: `src/a.ts (changed)`. */
  files: string[]
  openItems: string[]
  /** The last error met, with what caused it; empty when none. */
  lastError: string
}

/** The caller's model call: gets the messages to condense and the instructions; returns a Summary or markdown. */
export type Summarize = (messages: Message[], instructions: string) => Promise<Summary | string>

/** What the model is asked to write (the task and the latest request are filled in by promptline). */
export const SUMMARY_INSTRUCTIONS = [
  "Condense the conversation above so that work can continue from the summary alone.",
  "Answer in markdown with exactly these headings, in this order:",
  "## Constraints (bullets: requirements, preferences and rules the user stated)",
  "## Progress (bullets: what is done, with results)",
  "## Decisions (bullets: choices made and why)",
  "## Files (bullets: each file created or changed, with its state now)",
  "## Open items (bullets: what is left to do, next step first)",
  "## Last error (the last error met and its cause, or none)",
].join("\n")

type ListKey = "constraints" | "progress" | "decisions" | "files" | "openItems"

const HEADINGS: [keyof Summary, string][] = [
  ["task", "Task (verbatim)"],
  ["latestRequest", "Latest request (verbatim)"],
  ["constraints", "Constraints"],
  ["progress", "Progress"],
  ["decisions", "Decisions"],
  ["files", "Files"],
  ["openItems", "Open items"],
  ["lastError", "Last error"],
]

/** Other words models use for a heading. */
const ALIASES: Record<string, keyof Summary> = {
  task: "task",
  goal: "progress",
  "next steps": "openItems",
  "latest request": "latestRequest",
}

/** An empty summary. */
export function emptySummary(): Summary {
  return {
    task: "",
    latestRequest: "",
    constraints: [],
    progress: [],
    decisions: [],
    files: [],
    openItems: [],
    lastError: "",
  }
}

/** Reads a markdown answer with the summary headings; text before the first heading or under an unknown one goes to the section before. */
export function parseSummary(markdown: string): Summary {
  const summary = emptySummary()
  let current: keyof Summary = "progress"
  for (const line of markdown.split("\n")) {
    const heading = /^#{1,6}\s*(.+?)\s*$/.exec(line)
    if (heading) {
      const title = heading[1]!.toLowerCase()
      const found = HEADINGS.find(([, t]) => t.toLowerCase() === title)?.[0] ?? ALIASES[title]
      if (found) {
        current = found
        continue
      }
    }
    const text = line.trim()
    if (!text) continue
    if (current === "task" || current === "latestRequest" || current === "lastError") {
      const value = text.replace(/^[-*]\s+/, "")
      if (current === "lastError" && /^\(?none\)?\.?$/i.test(value)) continue
      summary[current] = summary[current] ? `${summary[current]}\n${value}` : value
    } else summary[current as ListKey].push(text.replace(/^[-*]\s+/, "").replace(/^#{1,6}\s*/, ""))
  }
  return summary
}

/** Renders a summary with the fixed headings (empty sections say so; verbatim texts are kept as written). */
export function renderSummary(summary: Summary): string {
  return HEADINGS.filter(
    ([key]) => key !== "latestRequest" || (summary.latestRequest && summary.latestRequest !== summary.task),
  )
    .map(([key, title]) => {
      const value = summary[key]
      const body =
        typeof value === "string"
          ? value || "(none)"
          : value.length
            ? value.map((v) => `- ${v}`).join("\n")
            : "- (none)"
      return `## ${title}\n${body}`
    })
    .join("\n\n")
}

/** What became of a file through the calls: created, changed or read (the strongest one wins). */
const FILE_STATES: Record<string, string> = {
  write_to_file: "written",
  replace_in_file: "changed",
  apply_patch: "changed",
  read_file: "read",
  list_code_definition_names: "read",
}
const STRENGTH = ["read", "changed", "written"]

/** Paths named by tool calls in the messages (the `path` input), in first-seen order. */
export function filesTouched(messages: readonly Message[]): string[] {
  return fileStates(messages).map((f) => f.path)
}

/** Paths named by tool calls with what was done to each (`written`, `changed`, `read`, `used`). */
export function fileStates(messages: readonly Message[]): { path: string; state: string }[] {
  const out: { path: string; state: string }[] = []
  for (const m of messages) {
    for (const b of m.content) {
      const path = b.type === "tool_use" ? (b.input as { path?: unknown } | null)?.path : undefined
      if (b.type !== "tool_use" || typeof path !== "string") continue
      const state = FILE_STATES[b.name] ?? "used"
      const seen = out.find((f) => f.path === path)
      if (!seen) out.push({ path, state })
      else if (STRENGTH.indexOf(state) > STRENGTH.indexOf(seen.state)) seen.state = state
    }
  }
  return out
}

/** The text of the last tool result marked as an error in the messages, shortened. */
export function lastError(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!
    for (let j = m.content.length - 1; j >= 0; j--) {
      const b = m.content[j]!
      if (b.type === "tool_result" && b.isError) {
        const text = textOf(b, { separator: "\n" }).trim()
        return text.length > 600 ? `${text.slice(0, 597)}...` : text
      }
    }
  }
  return ""
}

/**
 * The messages a compaction replaces: everything after the first exchange (an earlier summary
 * included, so the new one supersedes it) except a recent tail of `keepTail` messages; the tail starts
 * with an assistant message so the summary (a user message) is followed by one. Undefined when there
 * is nothing to condense.
 */
export function compactionRange(
  view: readonly Message[],
  keepTail: number,
): { start: number; end: number } | undefined {
  const start = Math.min(2, view.length)
  let tail = Math.max(1, Math.min(keepTail, view.length - start - 1))
  while (tail < view.length - start && view[view.length - tail]!.role !== "assistant") tail++
  const end = view.length - tail - 1
  if (end < start) return undefined
  // Nothing new to condense when the range is only an earlier summary.
  if (end === start && isSummaryId(view[start]!.id)) return undefined
  return { start, end }
}

/**
 * Completes the model's answer: the task and the latest request verbatim from `view` (the whole view up
 * to the end of the range, so a request condensed by an earlier summary is still found there), the files
 * touched by the condensed calls with their state, and the last error when the model named none.
 */
export function completeSummary(
  answer: Summary | string,
  view: readonly Message[],
  condensed: readonly Message[],
  previous?: Summary,
): Summary {
  const summary = typeof answer === "string" ? parseSummary(answer) : { ...answer, files: [...answer.files] }
  const requests = userRequests(view.filter((m) => !isSummaryId(m.id)))
  summary.task = requests[0] ?? previous?.task ?? summary.task
  const latest = requests.length > 1 ? requests.at(-1)! : (previous?.latestRequest ?? "")
  summary.latestRequest = latest && latest !== summary.task ? latest : ""
  for (const f of fileStates(condensed)) {
    if (
      !summary.files.some(
        (line) => line === f.path || line.startsWith(`${f.path} `) || line.startsWith(`\`${f.path}\``),
      )
    )
      summary.files.push(`${f.path} (${f.state})`)
  }
  if (!summary.lastError) summary.lastError = lastError(condensed)
  return summary
}

/** Builds the compaction edit for a range and a completed summary. */
export function compactionEdit(from: string, to: string, summary: Summary, ts: number): CompactionEdit {
  return { kind: "compaction", ts, from, to, summary: renderSummary(summary) }
}
