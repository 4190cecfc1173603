import type { PromptContext } from "../context/prompt-context.js"
import type { ModelInfo } from "../models/types.js"
import type { EnabledTool, ToolKind } from "../tools/spec.js"

/** Our own prompt text: rendered by the template engine and post-processed. */
export interface TemplateFragment {
  kind: "template"
  text: string
}

/** Text from files, tools or servers: inserted byte for byte, never evaluated as a template. */
export interface DataFragment {
  kind: "data"
  text: string
}

export type Fragment = TemplateFragment | DataFragment

/** Marks our own text as a template. */
export const tpl = (text: string): TemplateFragment => ({ kind: "template", text })
/** Marks external text as data. */
export const data = (text: string): DataFragment => ({ kind: "data", text })

/** What a component returns: a template string, a list of fragments, or nothing when it does not apply. */
export type SectionContent = string | Fragment[] | undefined

/** The enabled tools, queryable by kind and id. */
export interface ToolSet {
  readonly list: readonly EnabledTool[]
  /** True when a tool of this kind is enabled. */
  has(kind: ToolKind): boolean
  /** True when the tool with this id is enabled. */
  hasId(id: string): boolean
  /** The name of the enabled tool of this kind (the first in tool order), if any. */
  name(kind: ToolKind): string | undefined
}

/** What a component sees besides the context. */
export interface ComponentEnv {
  tools: ToolSet
  variant: string
  model: ModelInfo
  toolCalling: "native" | "xml"
  /** The variant's `brief` value: sections say what they must in fewer words (the compact variant). */
  brief: boolean
}

/** One section of the system prompt: a pure function of the context that may return nothing. */
export interface Component {
  id: string
  /**
   * Volatile sections hold per-project or per-day facts (instructions, date, cwd). With placement
   * `context-message` they go to the context message so the system prompt stays byte-stable.
   */
  volatile: boolean
  /** Tag that wraps the section in the context message. */
  tag?: string
  /**
   * Every context field the section depends on, directly or through a template value (a volatile
   * section that shows the date lists `date`). When given, the builder reuses the section while these
   * fields (compared with ===: contexts are immutable values) and the tool set are unchanged.
   */
  reads?: readonly (keyof PromptContext)[]
  render(context: PromptContext, env: ComponentEnv): SectionContent
}

/** Declares a component. */
export function defineComponent(
  id: string,
  render: Component["render"],
  options: { volatile?: boolean; tag?: string; reads?: readonly (keyof PromptContext)[] } = {},
): Component {
  const component: Component = { id, volatile: options.volatile ?? false, render }
  if (options.tag) component.tag = options.tag
  if (options.reads) component.reads = options.reads
  return component
}
