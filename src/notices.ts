/**
 * The text the model reads at run time, besides the system prompt: notices that stand in for removed
 * content, nudges after a cut or a compaction, environment updates and warnings, and the tags that wrap
 * them. One home, so a wording change is one edit here, and the snapshot tests of the history and agent
 * layers show its effect. Outside text is put inside these tags with `wrapTag` (tag-wrap.ts).
 */

/** The tags promptline wraps text in, by role. */
export const TAG = {
  /** The project's instruction files, in the context message. */
  projectInstructions: "project_instructions",
  /** Volatile facts (date, cwd, git), in the context message. */
  environmentDetails: "environment_details",
  /** The skills list, in the context message. */
  skills: "skills",
  /** The MCP servers list, in the context message. */
  mcpServers: "mcp_servers",
  /** Instruction files attached later, when the agent reaches their folder. */
  instructions: "instructions",
  /** A change of date or mode, told to the model in a user message. */
  environmentUpdate: "environment_update",
  /** Files that changed outside the agent since it last read or wrote them. */
  filesChangedExternally: "files_changed_externally",
  /** A tool result written as text (the XML dialect). */
  toolResult: "tool_result",
  /** One skill's text, when the model asks for it. */
  skill: "skill",
  /** The summary that replaces a compacted range. */
  conversationSummary: "conversation_summary",
  /** What agent harnesses use for their own notices (never ours, but never allowed inside wrapped text). */
  systemReminder: "system-reminder",
} as const

/** One of the tags promptline wraps text in. */
export type WrapperTag = (typeof TAG)[keyof typeof TAG]

/** Every wrapper tag: none of them may appear, opened or closed, inside wrapped text. */
export const WRAPPER_TAGS: readonly WrapperTag[] = Object.values(TAG)

/** The notice put into the first assistant message after a cut. */
export const TRUNCATION_NOTICE =
  "[promptline: part of the conversation after this point was removed to stay within the context window. " +
  "The original task above is kept; re-read any file you need instead of relying on memory of it.]"

/** The nudge after a compaction summary: continue from the summary. */
export const CONTINUATION_PROMPT = `The conversation so far was compacted: the summary above replaces the earlier messages. Continue the task from where it stopped, without repeating finished steps and without asking about what the summary already answers. The summary describes files as they were; read a file again before you change it.`

/** The notice that replaces an older copy of a file. */
export function dedupNotice(path: string): string {
  return `[promptline: an older copy of ${path} was removed here; a newer copy of this file appears later in the conversation]`
}

/** The placeholder that replaces a pruned tool output. */
export function prunedNotice(tool: string): string {
  return `[promptline: the output of this earlier ${tool} call was removed to save space; run it again if you need it]`
}

/** How the model can see lines `firstLine`–`lastLine` that were cut from a `tool` result. */
function howToGetMore(tool: string, firstLine: number, lastLine: number): string {
  if (tool === "read_file")
    return `read_file with start_line ${firstLine} and end_line ${lastLine} (or a smaller range) shows them`
  if (tool === "execute_command")
    return "run a narrower command (filter the output with grep, head or tail, or write it to a file and read a range)"
  if (tool === "search_files") return "search a narrower folder or with a more specific pattern"
  if (tool === "list_files") return "list a sub-folder"
  return "ask for less at a time"
}

/** The notice in the middle of a tool result that was cut: what was removed and how to get it. */
export function clipNotice(chars: number, lines: number, firstLine: number, lastLine: number, tool: string): string {
  return `\n[promptline: ${chars.toLocaleString("en-US")} characters (${lines.toLocaleString("en-US")} lines, ${firstLine}–${lastLine} of this output) were removed here because the whole result does not fit the model's context; ${howToGetMore(tool, firstLine, lastLine)}.]\n`
}

/** The environment update when the date changed during a session (inside TAG.environmentUpdate). */
export function dateUpdate(today: string): string {
  return `Today's date is now ${today}.`
}

/** The environment update when the session switches from plan mode to act mode (inside TAG.environmentUpdate). */
export const ACT_MODE_UPDATE = "Mode: act. Carry out the plan."

/** The lead of an instruction file attached when the agent reaches its folder (inside TAG.instructions). */
export function instructionsIntro(base: string, text: string): string {
  return `These instructions apply to files under ${base}:\n\n${text}`
}

/** The warning about files changed outside the agent (inside TAG.filesChangedExternally). */
export function changedFilesWarning(paths: readonly string[]): string {
  const list = paths.map((p) => `- ${p}`).join("\n")
  return `These files changed since you last read or wrote them; read them again before editing:\n${list}`
}

/** The tool_result text a denied call gets, so the model knows and can adapt. */
export function deniedMessage(name: string, why: "denied" | "non-interactive"): string {
  return why === "denied"
    ? `The user denied this ${name} call. It did not run. Do not retry it unchanged; choose another approach or explain what you need.`
    : `This ${name} call needs approval, but nobody can approve it in this non-interactive run. It did not run. Use tools that only read, or finish with what you have.`
}

/** `a, b and c` */
export function nameList(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`
}

/** The result a tool search gives the model: the tools it found are now in the tool list, or nothing matched. */
export function toolSearchResult(query: string, found: readonly string[], error?: string): string {
  if (error !== undefined) return `The tool search failed (${error}). Search again, or go on without it.`
  if (found.length === 0)
    return `No tool matched "${query}". Search again with other words (what the tool does, or the service it belongs to).`
  return `${found.length === 1 ? "1 tool" : `${found.length} tools`} for "${query}", best first, now in your tool list: ${nameList(found)}. Call the one that fits by its name, like any other tool.`
}

/** The text a tool result's references to deferred tools stand as, for a model whose API loads no references. */
export function toolsLoadedNote(names: readonly string[]): string {
  return `Loaded into your tool list: ${nameList(names)}. Call ${names.length === 1 ? "it" : "them"} by name, like any other tool.`
}

/** The description of the search tool the gateway offers over a request's deferred tools. */
export function deferredSearchDescription(count: number): string {
  return `Finds tools that are not in your tool list yet: ${count} more tool${count === 1 ? " is" : "s are"} available. Describe what you want to do in a few words (for example "create a pull request" or "take a screenshot of the page"); the best matches are added to your tool list and you call them by name, like any other tool. Search again with other words when nothing fits.`
}
