import type { PromptContext } from "../context/prompt-context.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { SectionReport, ToolReport } from "./report-types.js"
import { describeHits, findWith, type VolatileHit, volatileProbes } from "./volatile.js"

/** Warnings for volatile values inside the cached prefix: system sections and tool definitions. */
export function volatileWarnings(sections: SectionReport[], tools: ToolReport[], context: PromptContext): Diagnostic[] {
  const probes = volatileProbes(context)
  const out: Diagnostic[] = []
  const warn = (where: string, hits: VolatileHit[], fix: string) =>
    out.push(
      diagnostic(
        "warning",
        "volatile-in-prefix",
        `${where} holds ${describeHits(hits)} inside the cached prefix: ${fix}`,
      ),
    )
  for (const s of sections) {
    if (s.placement !== "system") continue
    const hits = findWith(s.text, probes)
    if (hits.length === 0) continue
    if (s.volatile)
      warn(
        `section ${s.id}`,
        hits,
        "it moves with every change; placement context-message sends it in the first user message",
      )
    else
      warn(
        `stable section ${s.id}`,
        hits,
        "the value came in through the context (custom prompt, override or server text); keep such values out of it",
      )
  }
  for (const t of tools) {
    if (t.where !== "definition") continue
    const hits = findWith(t.definition, probes)
    if (hits.length > 0)
      warn(
        `the definition of tool ${t.name}`,
        hits,
        `it changes the tools, which providers cache first; ${t.mcp ? `ask server ${t.mcp.server} for a fixed description` : "keep such values out of it"}`,
      )
  }
  return out
}
