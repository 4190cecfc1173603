/**
 * What a request asked for that an upstream's body does not carry: the encoders report the parts (`RequestPart`)
 * they could not write, the request decoders say which of the client's JSON paths each part came from, and the
 * two together name, in the client's own terms, everything a translation leaves out.
 */
import type { EnabledTool } from "../tools/spec.js"
import type { EncodeInput, EncodeOptions, RequestPart, ToolChoice } from "./types.js"

/** The client's JSON paths of the parts an encoder did not carry, in order, each once (a part without sources is named as itself). */
export function uncarriedPaths(
  parts: readonly RequestPart[],
  sources: Partial<Record<RequestPart, readonly string[]>>,
): string[] {
  const out = new Set<string>()
  for (const part of parts) for (const path of sources[part] ?? [part]) out.add(path)
  return [...out]
}

/** Adds `paths` to the sources of `part` (a decoder's record of where each part was read from). */
export function addSource(
  sources: Partial<Record<RequestPart, string[]>>,
  part: RequestPart,
  ...paths: readonly string[]
): void {
  const list = sources[part] ?? []
  for (const path of paths) if (!list.includes(path)) list.push(path)
  sources[part] = list
}

/**
 * A sentence that says the tool must never be called (Claude Code declares such a placeholder among its deferred
 * tools). Only a whole sentence counts: "Do not use this tool for file operations" describes a real tool.
 */
const NEVER_CALL =
  /^(?:(?:never|do not|don't|must not)\s+(?:ever\s+)?(?:call|use|invoke)\s+this\s+tool|this\s+tool\s+(?:is\s+a\s+placeholder|(?:must|should)\s+never\s+be\s+(?:called|used|invoked)))\W*$/i

/** Whether a tool is a placeholder: its description has a sentence saying never to call it. */
export function isPlaceholderTool(tool: Pick<EnabledTool, "description">): boolean {
  return tool.description
    .split(/(?<=[.!])\s+|\n+/)
    .map((s) => s.trim())
    .some((sentence) => NEVER_CALL.test(sentence))
}

/**
 * What an encoder that cannot defer tools leaves out: the prompt's deferred tools (unless promptline's own search
 * tool reaches them) and the native tool search over them. Deferred tools are never sent as ordinary tools.
 */
export function deferralUncarried(input: EncodeInput): RequestPart[] {
  const deferred = input.prompt.deferredTools ?? []
  // A search over no deferred tools has nothing to find; promptline's own search tool reaches them.
  if (deferred.length === 0 || input.prompt.tools.some((t) => t.kind === "tool_search")) return []
  return input.options?.nativeToolSearch ? ["deferredTools", "nativeToolSearch"] : ["deferredTools"]
}

/**
 * Whether a tool choice can go with the tools a body offers: a named tool must be one of them, and `required` needs
 * at least one (`auto` and `none` always can).
 */
export function choiceOffered(choice: ToolChoice, tools: readonly Pick<EnabledTool, "name">[]): boolean {
  if (choice === "auto" || choice === "none") return true
  if (choice === "required") return tools.length > 0
  return tools.some((t) => t.name === choice.name)
}

/** What a body without provider-side context management or stored responses leaves out (Chat, DeepSeek, Gemini). */
export function unmanagedUncarried(options: EncodeOptions): RequestPart[] {
  const out: RequestPart[] = []
  const managed = options.contextManagement ?? {}
  for (const key of Object.keys(managed) as (keyof typeof managed)[])
    if (managed[key] !== undefined) out.push(`contextManagement.${key}`)
  if (options.store === true) out.push("store")
  return out
}

/** The `uncarried` field of an encode result: present only when something was left out. */
export function withUncarried(parts: readonly RequestPart[]): { uncarried?: RequestPart[] } {
  return parts.length > 0 ? { uncarried: [...new Set(parts)] } : {}
}
