import type { PromptContext } from "../context/prompt-context.js"

/**
 * Finds per-project and per-day values inside text that belongs to the cached prefix. Detection is by
 * value: the context's own date, cwd, home, git branch and git status lines are looked up in the text,
 * so a leak is found whatever put it there (a template, a custom prompt, an MCP tool description).
 */

/** Which volatile value was found. */
export type VolatileKind = "date" | "time" | "cwd" | "home" | "git-branch" | "git-status"

/** One volatile value found in a piece of prefix text. */
export interface VolatileHit {
  kind: VolatileKind
  /** The text that matched. */
  value: string
  /** How many times it occurs in the text. */
  count: number
}

/** A value to look for, and how to match it. */
interface Probe {
  kind: VolatileKind
  value: string
  /** Only occurrences that follow this prefix count (for branch names that are plain words). */
  after?: string
}

/** Characters that continue a path or a name: a match followed or preceded by one is part of something longer. */
const NAME_CHAR = /[\p{L}\p{N}_.\-/]/u
/** Characters that may continue a path after a match (a cwd inside a longer path still counts, a longer name does not). */
const NAME_TAIL = /[\p{L}\p{N}_.-]/u
const DIGIT = /\d/

/** Clock times with seconds (`10:30:15`) and the time of an ISO date-time (`2026-11-29T10:30`): volatile whatever the context says. */
const TIME_PATTERN = /(?<![\d:])\d{2}:\d{2}:\d{2}(?![\d:])|(?<=\dT)\d{2}:\d{2}(?![\d:])/g

/** The values of a context worth looking for, longest first so a cwd is matched before the home it contains. */
export function volatileProbes(context: PromptContext): Probe[] {
  const probes: Probe[] = [{ kind: "date", value: context.date }]
  if (context.cwd.length > 1) probes.push({ kind: "cwd", value: trimSlash(context.cwd) })
  const home = trimSlash(context.platform.home)
  if (home.length > 2 && home !== "~") probes.push({ kind: "home", value: home })
  const branch = context.git?.branch
  if (branch && branch.length >= 3) {
    // A branch called `main` or `develop` is also an English word: only "branch main" counts then.
    probes.push(
      /^[a-z]+$/i.test(branch)
        ? { kind: "git-branch", value: branch, after: "branch " }
        : { kind: "git-branch", value: branch },
    )
  }
  for (const line of (context.git?.status ?? "").split("\n")) {
    const trimmed = line.trim()
    if (trimmed.length >= 6) probes.push({ kind: "git-status", value: trimmed })
  }
  return probes.sort((a, b) => b.value.length - a.value.length || a.kind.localeCompare(b.kind))
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path
}

/** Occurrences of `probe` in `text` that are whole values (not part of a longer name), outside masked ranges. */
function occurrences(text: string, probe: Probe, masked: boolean[]): number[] {
  const found: number[] = []
  const { value } = probe
  // A path may sit inside a longer path after it (`<cwd>/src`), a name may not (`main` in `mainline`);
  // a date is whole when no digit touches it (`2026-11-29T10:00` holds the date).
  const date = probe.kind === "date"
  const lead = date ? DIGIT : value.startsWith("/") ? NAME_TAIL : NAME_CHAR
  const tail = date ? DIGIT : NAME_TAIL
  for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
    if (masked[at]) continue
    if (at > 0 && lead.test(text[at - 1]!)) continue
    const end = at + value.length
    const next = text[end] ?? ""
    // A full stop ends a sentence, not the value, unless a name character follows it.
    const continues = next === "." ? tail.test(text[end + 1] ?? "") : next !== "" && tail.test(next)
    if (continues) continue
    if (
      probe.after &&
      !text
        .slice(Math.max(0, at - probe.after.length), at)
        .toLowerCase()
        .endsWith(probe.after)
    )
      continue
    found.push(at)
  }
  return found
}

/** The volatile values of `context` found in `text`, each counted once per occurrence, in probe order. */
export function findVolatile(text: string, context: PromptContext): VolatileHit[] {
  return findWith(text, volatileProbes(context))
}

/** Like findVolatile, with probes made once for many texts. */
export function findWith(text: string, probes: readonly Probe[]): VolatileHit[] {
  const hits: VolatileHit[] = []
  const masked: boolean[] = []
  for (const probe of probes) {
    const at = occurrences(text, probe, masked)
    if (at.length === 0) continue
    for (const start of at) for (let i = start; i < start + probe.value.length; i++) masked[i] = true
    hits.push({ kind: probe.kind, value: probe.value, count: at.length })
  }
  const times = new Map<string, number>()
  for (const match of text.matchAll(TIME_PATTERN)) {
    if (masked[match.index]) continue
    times.set(match[0], (times.get(match[0]) ?? 0) + 1)
  }
  for (const [value, count] of [...times].sort((a, b) => a[0].localeCompare(b[0])))
    hits.push({ kind: "time", value, count })
  return hits
}

/** Names the kinds of value for a message, e.g. "the date 2026-11-29 and the cwd /home/dev/shop". */
export function describeHits(hits: readonly VolatileHit[]): string {
  const words: Record<VolatileKind, string> = {
    date: "the date",
    time: "the time",
    cwd: "the working directory",
    home: "the home folder",
    "git-branch": "the git branch",
    "git-status": "a git status line",
  }
  const parts = hits.map((h) => `${words[h.kind]} ${JSON.stringify(h.value)}`)
  if (parts.length <= 1) return parts.join("")
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`
}
