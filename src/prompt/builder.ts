import { hash } from "node:crypto"
import type { PromptContext } from "../context/prompt-context.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { lifecycleDiagnostic } from "../models/lifecycle.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo, WireFormat } from "../models/types.js"
import { wireFormatOf } from "../models/wire.js"
import { neutralizeTags, WRAPPER_TAGS } from "../tag-wrap.js"
import { BUILTIN_TOOLS } from "../tools/catalog/index.js"
import { mcpToolSpecs } from "../tools/mcp.js"
import { toNativeTools } from "../tools/native.js"
import type { NativeToolDefinition } from "../tools/native-types.js"
import { planToolSearch } from "../tools/search/plan.js"
import { type Selection, selectTools } from "../tools/select.js"
import type { EnabledTool, ToolKind, ToolSpec } from "../tools/spec.js"
import { ContextCanon } from "./canonical.js"
import type { Component, ComponentEnv, ToolSet } from "./component.js"
import { BUILTIN_COMPONENTS } from "./components/index.js"
import { enableTool } from "./enable-tool.js"
import { BoundedMap, RecentResults } from "./memo.js"
import { chooseVariant, type VariantChoice } from "./registry.js"
import { stableScope } from "./scope.js"
import { type BuiltSection, makeSection, renderComponent, type Scopes, type SectionStage } from "./section.js"

export type { BuiltSection } from "./section.js"

import { TemplateEngine, type TemplateStrictness } from "./template.js"
import type { Variant } from "./variant.js"
import { BUILTIN_VARIANTS } from "./variants/index.js"

/** The result of a build: everything that is sent, and how it was decided. */
export interface BuiltPrompt {
  /** The system prompt. */
  text: string
  /** Per-project and per-day facts for the first user message, when placement is `context-message`. */
  contextMessage?: string
  sections: BuiltSection[]
  /** The enabled tools in their stable order (with tool search on: the loaded ones, then the search tools). */
  tools: EnabledTool[]
  /** Tools left out of the list by tool search, found and called through the search tools; empty when off. */
  deferredTools: EnabledTool[]
  /** The tools in the native definition format of the model's wire format (empty for the XML dialect). */
  nativeTools: NativeToolDefinition[]
  wireFormat: WireFormat
  toolCalling: "native" | "xml"
  variant: string
  model: ModelInfo
  diagnostics: Diagnostic[]
  /** Hash of what reaches the provider's cached prefix (tools, then system prompt). */
  hash: string
}

/** Settings of a builder: registries to extend and how strict templates are. */
export interface BuilderOptions {
  /** `strict` (tests): template errors throw. `report` (default): error diagnostics, the failing text left out. */
  templates?: TemplateStrictness
  variants?: readonly Variant[]
  components?: readonly Component[]
  tools?: readonly ToolSpec[]
  /** Model catalog additions and overrides. */
  models?: readonly ModelInfo[]
}

const CUSTOM = "custom-prompt"

const sha = (text: string): string => hash("sha256", text, "hex")

/** The tag that wraps a volatile section in the context message. */
const tagOf = (component: Component | undefined, id: string): string => component?.tag ?? id.replace(/-/g, "_")

function toolSet(list: EnabledTool[], byKind: Record<ToolKind, string>): ToolSet {
  const ids = new Set(list.map((t) => t.id))
  return {
    list,
    has: (kind) => byKind[kind] !== "",
    hasId: (id) => ids.has(id),
    name: (kind) => byKind[kind] || undefined,
  }
}

/** The result of choosing a variant, with the resolved model and dialect. */
export type Explanation = VariantChoice & { model: ModelInfo; toolCalling: "native" | "xml" }

/** Everything that follows from the tool set: shared by every build with the same tool inputs. */
interface ToolStage {
  /** Rendered sections by component, each with the inputs it was rendered from. */
  sections: Map<string, SectionMemo[]>
  selection: Selection
  tools: EnabledTool[]
  deferredTools: EnabledTool[]
  env: ComponentEnv
  scope: Record<string, unknown>
  nativeTools: NativeToolDefinition[]
  toolsHash: string
  diagnostics: Diagnostic[]
}

/** A section reused while the context fields its component reads keep their values. */
interface SectionMemo {
  placement: PromptContext["placement"]
  values: unknown[]
  result: SectionStage
}

/**
 * The stages that depend only on the context and the registries: the canonical field values, the variant
 * choices and the tool stages (with their rendered sections). Builders made with the built-in registries
 * share one set per template strictness, so a new builder in a warm process renders nothing anew.
 */
class SharedStages {
  readonly canon = new ContextCanon<PromptContext>()
  readonly choices = new BoundedMap<string, Explanation>(256)
  readonly toolStages = new RecentResults<ToolStage>(16)
}

/** The stages of the builders that use only the built-in registries, by template strictness. */
const builtinStages = new Map<TemplateStrictness, SharedStages>()

/** True when a builder uses the built-in variants, components, tools and models unchanged. */
const usesBuiltins = (options: BuilderOptions): boolean =>
  options.variants === undefined &&
  options.components === undefined &&
  options.tools === undefined &&
  options.models === undefined

/**
 * Builds system prompts. A builder keeps caches (rendered text, stages keyed by the identity of the
 * context fields they read, equal fields given one identity first), so an agent keeps one for its session. Contexts are
 * immutable values: make a changed one with `{ ...context, date }`, never by mutation.
 */
export class PromptBuilder {
  readonly #engine: TemplateEngine
  readonly #variants: readonly Variant[]
  readonly #components: Map<string, Component>
  readonly #tools: readonly ToolSpec[]
  readonly #models: readonly ModelInfo[] | undefined
  readonly #memo = new WeakMap<PromptContext, BuiltPrompt>()
  readonly #canon: ContextCanon<PromptContext>
  readonly #byContent = new RecentResults<BuiltPrompt>(8)
  readonly #choices: BoundedMap<string, Explanation>
  readonly #toolStages: RecentResults<ToolStage>
  readonly #systemText = new RecentResults<{ text: string; hash: string }>(4)
  readonly #wrapped = new WeakMap<BuiltSection, string>()
  /** The tags of every volatile component: none of them may appear raw inside a wrapped section. */
  readonly #tags: string[]
  readonly #cacheableChoice: boolean

  constructor(options: BuilderOptions = {}) {
    const strictness = options.templates ?? "report"
    this.#engine = new TemplateEngine(strictness)
    let stages = usesBuiltins(options) ? builtinStages.get(strictness) : undefined
    if (!stages) {
      stages = new SharedStages()
      if (usesBuiltins(options)) builtinStages.set(strictness, stages)
    }
    this.#canon = stages.canon
    this.#choices = stages.choices
    this.#toolStages = stages.toolStages
    this.#variants = [
      ...BUILTIN_VARIANTS.filter((v) => !options.variants?.some((o) => o.id === v.id)),
      ...(options.variants ?? []),
    ]
    this.#components = new Map([...BUILTIN_COMPONENTS, ...(options.components ?? [])].map((c) => [c.id, c]))
    this.#tools = options.tools ?? BUILTIN_TOOLS
    // Its own section tags, and every tag the conversation wraps text in later.
    const own = [...this.#components.values()].filter((c) => c.volatile).map((c) => tagOf(c, c.id))
    this.#tags = [...new Set([...WRAPPER_TAGS, ...own])]
    this.#models = options.models
    // A custom matcher may read any field, so its choice cannot be keyed by the fields below.
    this.#cacheableChoice = !this.#variants.some((v) => v.match.some((m) => m.custom))
  }

  /** Resolves the model and chooses the variant, saying why. */
  explain(context: PromptContext): Explanation {
    const key = `${context.model.id}\u0001${context.model.provider}\u0001${context.variant}\u0001${context.audience}\u0001${context.toolCalling}`
    const cached = this.#cacheableChoice ? this.#choices.get(key) : undefined
    if (cached) return cached
    const resolved = resolveModel(context.model.id, {
      provider: context.model.provider,
      ...(this.#models ? { models: this.#models } : {}),
    })
    const choice = chooseVariant(this.#variants, context, resolved.model)
    const dialect = choice.variant.toolCalling
    const toolCalling =
      context.toolCalling ??
      (dialect === "auto" ? (resolved.model.capabilities.nativeTools ? "native" : "xml") : dialect)
    const explanation: Explanation = {
      ...choice,
      diagnostics: [...resolved.diagnostics, ...choice.diagnostics],
      model: resolved.model,
      toolCalling,
    }
    return this.#cacheableChoice ? this.#choices.set(key, explanation) : explanation
  }

  /**
   * Builds the prompt for a context. The same context (or an equal one) always gives the same bytes.
   * A context equal in content to a recent one (e.g. parsed again from JSON) returns that build, and one
   * that differs in some fields reuses every stage whose fields are equal.
   */
  build(context: PromptContext): BuiltPrompt {
    const memo = this.#memo.get(context)
    if (memo) return memo
    const canonical = this.#canon.canonical(context)
    const result = this.#byContent.get(ContextCanon.inputs(canonical), () => this.#build(canonical))
    this.#memo.set(context, result)
    return result
  }

  // Sections are memoized upstream, so a section's text is hashed only when it is rendered anew.
  readonly #hash = sha

  #build(context: PromptContext): BuiltPrompt {
    const choice = this.explain(context)
    const { variant, model, toolCalling } = choice
    const wireFormat = wireFormatOf(model)
    const stage = this.#toolStages.get(
      [
        variant,
        toolCalling,
        model,
        context.tools,
        context.features,
        context.skills,
        context.mcpServers,
        context.mode,
        context.autonomy,
        context.interactive,
        context.audience,
        context.agent,
        context.overrides,
      ],
      () => this.#toolStage(context, variant, model, toolCalling, wireFormat),
    )

    const diagnostics: Diagnostic[] = [...choice.diagnostics, ...stage.diagnostics]
    // A retired or deprecated model is named with its successor, as of the context's date (never the clock).
    const lifecycle = lifecycleDiagnostic(model, context.date, this.#models)
    if (lifecycle) diagnostics.push(lifecycle)
    const sections = this.#sections(context, variant, stage, diagnostics)
    const system = sections.filter((s) => s.placement === "system")
    const volatile = sections.filter((s) => s.placement === "context-message")
    const prefix = this.#systemText.get([stage, ...system], () => ({
      text: system.map((s) => s.text).join("\n\n"),
      hash: sha(`${wireFormat}\n${stage.toolsHash}\n${system.map((s) => s.hash).join("\n")}`),
    }))
    const built: BuiltPrompt = {
      text: prefix.text,
      sections,
      tools: stage.tools,
      deferredTools: stage.deferredTools,
      nativeTools: stage.nativeTools,
      wireFormat,
      toolCalling,
      variant: variant.id,
      model,
      diagnostics,
      hash: prefix.hash,
    }
    if (volatile.length > 0) {
      // Concatenated, not joined: the unchanged wrapped sections are shared, not copied, in each build.
      let message = this.#wrap(volatile[0]!)
      for (let i = 1; i < volatile.length; i++) message += `\n\n${this.#wrap(volatile[i]!)}`
      built.contextMessage = message
    }
    return built
  }

  /**
   * A volatile section wrapped in its tag, with every tag the builder can wrap neutralized inside it
   * (a fixed set, so the result depends on the section alone and is remembered per section).
   */
  #wrap(section: BuiltSection): string {
    let wrapped = this.#wrapped.get(section)
    if (wrapped === undefined) {
      const tag = tagOf(this.#components.get(section.id), section.id)
      wrapped = `<${tag}>\n${neutralizeTags(section.text, this.#tags)}\n</${tag}>`
      this.#wrapped.set(section, wrapped)
    }
    return wrapped
  }

  #toolStage(
    context: PromptContext,
    variant: Variant,
    model: ModelInfo,
    toolCalling: "native" | "xml",
    wireFormat: WireFormat,
  ): ToolStage {
    const mcp = mcpToolSpecs(context.mcpServers)
    const selection = selectTools({ context, variant, builtins: this.#tools, mcp: mcp.specs })
    const diagnostics = [...mcp.diagnostics, ...selection.diagnostics]
    const scope = stableScope(context, variant, model, toolCalling, selection)
    const enabled = selection.tools.map((t) => enableTool(t, scope, this.#engine, diagnostics))
    const plan = planToolSearch(
      selection.tools.map((t, i) => ({ spec: t.spec, tool: enabled[i]! })),
      context.tools?.search,
      model,
    )
    diagnostics.push(...plan.diagnostics)
    const tools = plan.tools
    // Deferred tools keep their kind's name: they can still be called, through the call tool.
    const byKind = { ...selection.byKind }
    for (const t of tools) if (byKind[t.kind] === "") byKind[t.kind] = t.name
    const env: ComponentEnv = {
      tools: toolSet(tools, byKind),
      variant: variant.id,
      model,
      toolCalling,
      brief: scope.brief === true,
    }
    const nativeTools = toolCalling === "native" ? toNativeTools(tools, wireFormat) : []
    const toolsHash = nativeTools.length > 0 ? sha(JSON.stringify(nativeTools)) : ""
    const deferredTools = plan.deferred
    return { sections: new Map(), selection, tools, deferredTools, env, scope, nativeTools, toolsHash, diagnostics }
  }

  #sections(context: PromptContext, variant: Variant, stage: ToolStage, diagnostics: Diagnostic[]): BuiltSection[] {
    const sections: BuiltSection[] = []
    const custom = context.customPrompt
    const scopes: Scopes = { stable: stage.scope, context, volatile: undefined }
    for (const id of variant.components) {
      const component = this.#components.get(id)
      if (!component) {
        diagnostics.push(
          diagnostic("error", "component-missing", `variant "${variant.id}" lists unknown component "${id}"`),
        )
        continue
      }
      // Volatile sections come after the stable ones; a custom prompt sits between them.
      if (component.volatile && custom) this.#placeCustom(sections, context)
      // Replace mode keeps what the model needs to call tools in the XML dialect, and the volatile facts.
      const keep = component.volatile || (id === "tool-use" && stage.env.toolCalling === "xml")
      if (custom?.mode === "replace" && !keep) continue
      const result = this.#componentSection(component, context, variant, stage, scopes)
      diagnostics.push(...result.diagnostics)
      if (result.section) this.#push(sections, result.section, context)
    }
    if (custom) this.#placeCustom(sections, context)
    return sections
  }

  /** A component's section: reused while the fields it reads are unchanged, else rendered. */
  #componentSection(
    component: Component,
    context: PromptContext,
    variant: Variant,
    stage: ToolStage,
    scopes: Scopes,
  ): SectionStage {
    const reads = component.reads
    if (!reads) return renderComponent(component, context, variant, stage.env, scopes, this.#engine, this.#hash)
    let recent = stage.sections.get(component.id)
    if (!recent) {
      recent = []
      stage.sections.set(component.id, recent)
    }
    for (const entry of recent) {
      if (entry.placement !== context.placement) continue
      let same = true
      for (let i = 0; i < reads.length && same; i++) same = entry.values[i] === context[reads[i]!]
      if (same) return entry.result
    }
    const result = renderComponent(component, context, variant, stage.env, scopes, this.#engine, this.#hash)
    recent.unshift({ placement: context.placement, values: reads.map((r) => context[r]), result })
    if (recent.length > 4) recent.pop()
    return result
  }

  #push(sections: BuiltSection[], section: BuiltSection, context: PromptContext): void {
    const override = context.overrides?.[`sections.${section.id}`]
    sections.push(override === undefined ? section : { ...section, text: override, hash: this.#hash(override) })
  }

  #placeCustom(sections: BuiltSection[], context: PromptContext): void {
    const custom = context.customPrompt
    if (!custom || sections.some((s) => s.id === CUSTOM)) return
    const section = makeSection(CUSTOM, false, context.placement, [{ text: custom.text, verbatim: true }], this.#hash)
    if (section) this.#push(sections, section, context)
  }
}

/** Builds the system prompt for a context with a fresh builder. Agents keep a PromptBuilder instead. */
export function build(context: PromptContext, options?: BuilderOptions): BuiltPrompt {
  return new PromptBuilder(options).build(context)
}

/** Says which variant a context gets, why, and which were considered. */
export function explain(context: PromptContext, options?: BuilderOptions): Explanation {
  return new PromptBuilder(options).explain(context)
}
