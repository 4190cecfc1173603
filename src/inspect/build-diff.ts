import { lazyModule } from "../lazy-module.js"

/** jsdiff, required on the first diff. */
const jsdiff = lazyModule<typeof import("diff")>("diff")

import type { InspectReport, SectionReport, ToolReport } from "./report.js"

/** One build of a diff, summed up. */
export interface DiffSide {
  /** How the build was named on the command line (a model id or a context file). */
  label: string
  model: string
  variant: string
  toolCalling: "native" | "xml"
  wireFormat: string
  tokenizer: string
  hash: string
  totals: InspectReport["totals"]
}

/** How one section differs between the two builds. */
export interface SectionChange {
  id: string
  status: "added" | "removed" | "changed" | "unchanged"
  /** The section is in both builds but at another position among the common sections. */
  moved?: boolean
  before?: Pick<SectionReport, "tokens" | "placement" | "text">
  after?: Pick<SectionReport, "tokens" | "placement" | "text">
  /** after − before tokens (a missing side counts 0). */
  delta: number
  /** Unified line diff of a changed section's text (`@@` hunks, `-`/`+`/` ` lines). */
  patch?: string
}

/** How one tool differs: matched by the name the model calls. */
export interface ToolChange {
  name: string
  status: "added" | "removed" | "changed" | "unchanged"
  /** What differs in a changed tool: `description`, `parameters`. */
  changes?: string[]
  before?: number
  after?: number
  delta: number
}

/** A diff of two builds, section by section and tool by tool, with token deltas. */
export interface BuildDiff {
  a: DiffSide
  b: DiffSide
  sections: SectionChange[]
  tools: ToolChange[]
  /** b − a for each total. */
  delta: { system: number; contextMessage: number; tools: number; total: number }
  /** The cached prefixes are byte-identical (same hash). */
  samePrefix: boolean
  /** Both sides were counted with the same tokenizer (else deltas mix two tokenizers). */
  sameTokenizer: boolean
}

function side(label: string, r: InspectReport): DiffSide {
  return {
    label,
    model: r.model.id,
    variant: r.variant,
    toolCalling: r.toolCalling,
    wireFormat: r.model.wireFormat,
    tokenizer: r.counting.tokenizer,
    hash: r.cache.hash,
    totals: r.totals,
  }
}

const pick = (s: SectionReport) => ({ tokens: s.tokens, placement: s.placement, text: s.text })

/** A unified line diff of two texts: hunks with `context` lines around each change, no file headers. */
export function unifiedDiff(before: string, after: string, context = 3): string {
  const patch = jsdiff().structuredPatch("a", "b", `${before}\n`, `${after}\n`, undefined, undefined, { context })
  const lines: string[] = []
  for (const h of patch.hunks) {
    lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`)
    lines.push(...h.lines.filter((l) => !l.startsWith("\\")))
  }
  return lines.join("\n")
}

/** The ids of both lists in one order: common ids where b has them, removed ids where a had them. */
function mergedOrder(a: string[], b: string[]): { id: string; moved: boolean }[] {
  const inA = new Set(a)
  const inB = new Set(b)
  const out: { id: string; moved: boolean }[] = []
  for (const part of jsdiff().diffArrays(a, b)) {
    for (const id of part.value) {
      if (part.removed) {
        if (!inB.has(id)) out.push({ id, moved: false })
      } else if (part.added) out.push({ id, moved: inA.has(id) })
      else out.push({ id, moved: false })
    }
  }
  return out
}

function sectionChanges(a: InspectReport, b: InspectReport): SectionChange[] {
  const before = new Map(a.sections.map((s) => [s.id, s]))
  const after = new Map(b.sections.map((s) => [s.id, s]))
  const order = mergedOrder(
    a.sections.map((s) => s.id),
    b.sections.map((s) => s.id),
  )
  return order.map(({ id, moved }) => {
    const x = before.get(id)
    const y = after.get(id)
    if (!x) return { id, status: "added", after: pick(y!), delta: y!.tokens }
    if (!y) return { id, status: "removed", before: pick(x), delta: -x.tokens }
    const change: SectionChange = {
      id,
      status: x.text === y.text && x.placement === y.placement ? "unchanged" : "changed",
      before: pick(x),
      after: pick(y),
      delta: y.tokens - x.tokens,
    }
    if (moved) change.moved = true
    if (x.text !== y.text) change.patch = unifiedDiff(x.text, y.text)
    return change
  })
}

function toolChanges(a: InspectReport, b: InspectReport): ToolChange[] {
  const before = new Map(a.tools.map((t) => [t.name, t]))
  const after = new Map(b.tools.map((t) => [t.name, t]))
  const order = mergedOrder(
    a.tools.map((t) => t.name),
    b.tools.map((t) => t.name),
  )
  return order.map(({ id: name }) => {
    const x = before.get(name)
    const y = after.get(name)
    if (!x) return { name, status: "added", after: y!.tokens, delta: y!.tokens }
    if (!y) return { name, status: "removed", before: x.tokens, delta: -x.tokens }
    const changes = toolDifferences(x, y)
    const change: ToolChange = {
      name,
      status: changes.length > 0 ? "changed" : "unchanged",
      before: x.tokens,
      after: y.tokens,
      delta: y.tokens - x.tokens,
    }
    if (changes.length > 0) change.changes = changes
    return change
  })
}

function toolDifferences(x: ToolReport, y: ToolReport): string[] {
  const out: string[] = []
  if (x.description !== y.description) out.push("description")
  if (JSON.stringify(x.parameters) !== JSON.stringify(y.parameters)) out.push("parameters")
  if (x.where !== y.where) out.push(y.where === "definition" ? "now a native definition" : "now documented in XML")
  return out
}

/** Compares two inspect reports: sections and tools added, removed and changed, with token deltas. */
export function diffBuilds(
  a: InspectReport,
  b: InspectReport,
  labels: [string, string] = [a.model.id, b.model.id],
): BuildDiff {
  return {
    a: side(labels[0], a),
    b: side(labels[1], b),
    sections: sectionChanges(a, b),
    tools: toolChanges(a, b),
    delta: {
      system: b.totals.system - a.totals.system,
      contextMessage: b.totals.contextMessage - a.totals.contextMessage,
      tools: b.totals.tools - a.totals.tools,
      total: b.totals.total - a.totals.total,
    },
    samePrefix: a.cache.hash === b.cache.hash,
    sameTokenizer: a.counting.tokenizer === b.counting.tokenizer,
  }
}
