import type { CompactionEdit } from "./edits.js"
import type { Message } from "./message.js"
import { headLength } from "./truncate.js"

/** The fixed structure of a compaction summary. */
export interface Summary {
  goal: string
  constraints: string[]
  progress: string[]
  decisions: string[]
  nextSteps: string[]
  files: string[]
}

/** The caller's model call: gets the messages to condense and the instructions; returns a Summary or markdown. */
export type Summarize = (messages: Message[], instructions: string) => Promise<Summary | string>

/** What the model is asked to write. */
export const SUMMARY_INSTRUCTIONS = [
  "Condense the conversation above so that work can continue from the summary alone.",
  "Answer in markdown with exactly these headings, in this order:",
  "## Goal (one paragraph: what the user asked for)",
  "## Constraints (bullets: requirements, preferences and rules the user stated)",
  "## Progress (bullets: what is done, with results)",
  "## Decisions (bullets: choices made and why)",
  "## Next steps (bullets)",
  "## Files (bullets: paths read or changed, one per line)",
].join("\n")

const HEADINGS: [keyof Summary, string][] = [
  ["goal", "Goal"],
  ["constraints", "Constraints"],
  ["progress", "Progress"],
  ["decisions", "Decisions"],
  ["nextSteps", "Next steps"],
  ["files", "Files"],
]

/** Reads a markdown answer with the summary headings; unknown text before the first heading goes to the goal. */
export function parseSummary(markdown: string): Summary {
  const summary: Summary = { goal: "", constraints: [], progress: [], decisions: [], nextSteps: [], files: [] }
  let current: keyof Summary = "goal"
  for (const line of markdown.split("\n")) {
    const heading = /^#{1,6}\s*(.+?)\s*$/.exec(line)
    if (heading) {
      const found = HEADINGS.find(([, title]) => title.toLowerCase() === heading[1]!.toLowerCase())
      if (found) {
        current = found[0]
        continue
      }
    }
    const text = line.trim()
    if (!text) continue
    if (current === "goal") summary.goal = summary.goal ? `${summary.goal} ${text}` : text
    else summary[current].push(text.replace(/^[-*]\s+/, "").replace(/^#{1,6}\s*/, ""))
  }
  return summary
}

/** Renders a summary with the fixed headings (empty sections say so). */
export function renderSummary(summary: Summary): string {
  return HEADINGS.map(([key, title]) => {
    const value = summary[key]
    const body =
      typeof value === "string" ? value || "(none)" : value.length ? value.map((v) => `- ${v}`).join("\n") : "- (none)"
    return `## ${title}\n${body}`
  }).join("\n\n")
}

/** Paths named by tool calls in the messages (the `path` input), in first-seen order. */
export function filesTouched(messages: readonly Message[]): string[] {
  const files: string[] = []
  for (const m of messages) {
    for (const b of m.content) {
      const path = b.type === "tool_use" ? (b.input as { path?: unknown } | null)?.path : undefined
      if (typeof path === "string" && !files.includes(path)) files.push(path)
    }
  }
  return files
}

/**
 * The messages a compaction replaces: everything after the head (first exchange and summary) except a
 * recent tail of `keepTail` messages; the tail starts with an assistant message so the summary (a user
 * message) is followed by one. Undefined when there is nothing to condense.
 */
export function compactionRange(
  view: readonly Message[],
  keepTail: number,
): { start: number; end: number } | undefined {
  const start = headLength(view)
  let tail = Math.max(1, Math.min(keepTail, view.length - start - 1))
  while (tail < view.length - start && view[view.length - tail]!.role !== "assistant") tail++
  const end = view.length - tail - 1
  return end >= start ? { start, end } : undefined
}

/**
 * Condenses the view: asks `summarize` for a summary of the range and returns the compaction edit that
 * hides the range and puts the summary (with the fixed structure) in its place as a user message.
 */
export async function compactHistory(
  view: readonly Message[],
  summarize: Summarize,
  options: { now: number; keepTail?: number },
): Promise<CompactionEdit | undefined> {
  const range = compactionRange(view, options.keepTail ?? 6)
  if (!range) return undefined
  const condensed = view.slice(range.start, range.end + 1).filter((m) => !m.id.startsWith("summary-"))
  if (condensed.length === 0) return undefined
  const answer = await summarize(view.slice(0, range.end + 1), SUMMARY_INSTRUCTIONS)
  const summary = typeof answer === "string" ? parseSummary(answer) : { ...answer }
  for (const f of filesTouched(condensed)) if (!summary.files.includes(f)) summary.files.push(f)
  return {
    kind: "compaction",
    ts: options.now,
    from: condensed[0]!.id,
    to: condensed.at(-1)!.id,
    summary: renderSummary(summary),
  }
}
