// The action of `promptline diff`, loaded only when the command runs (see diff.ts for its flags).
import type { PromptContext } from "../context/prompt-context.js"
import type { Diagnostic } from "../diagnostics.js"
import { PromptlineError } from "../errors.js"
import { TokenCounter } from "../history/tokens.js"
import { diffBuilds } from "../inspect/build-diff.js"
import { renderDiff } from "../inspect/render-diff.js"
import { inspectReport } from "../inspect/report.js"
import { withModel } from "../inspect/with-model.js"
import { PromptBuilder } from "../prompt/builder.js"
import type { ContextFlags } from "./context-options.js"
import { contextFrom } from "./context-source.js"
import type { DiffFlags } from "./diff.js"
import { useColor } from "./inspect.js"
import type { CliIO } from "./io.js"
import { printDiagnostics, printJson } from "./print.js"

/** Builds both sides and prints their differences for `promptline diff`; returns the exit code. */
export async function diffAction(flags: DiffFlags, io: CliIO): Promise<number> {
  const { model: models, context: files } = flags
  const base = { ...flags, model: undefined, context: undefined } as ContextFlags
  const sides: { label: string; context: PromptContext }[] = []
  const diagnostics: Diagnostic[] = []
  if (files.length === 2 && models.length <= 1) {
    for (const file of files) {
      const got = await contextFrom({ ...base, context: file, ...(models[0] ? { model: models[0] } : {}) }, io)
      diagnostics.push(...got.diagnostics)
      sides.push({ label: file, context: got.context })
    }
  } else if (models.length === 2 && files.length <= 1) {
    const got = await contextFrom({ ...base, model: models[0]!, ...(files[0] ? { context: files[0] } : {}) }, io)
    diagnostics.push(...got.diagnostics)
    sides.push({ label: models[0]!, context: got.context })
    sides.push({ label: models[1]!, context: withModel(got.context, models[1]!, flags.provider) })
  } else {
    throw new PromptlineError(
      "diff-needs-two",
      "diff compares two builds: give --model A --model B, or --context FILE --context FILE",
    )
  }
  const counter = await TokenCounter.create()
  const builder = new PromptBuilder()
  const [a, b] = sides.map((s) => inspectReport({ built: builder.build(s.context), context: s.context, counter }))
  const diff = diffBuilds(a!, b!, [sides[0]!.label, sides[1]!.label])
  const all = [...diagnostics, ...a!.diagnostics, ...b!.diagnostics]
  if (flags.json) printJson(io, diff)
  else {
    io.stdout(renderDiff(diff, { color: useColor(io, flags.color), unchangedTools: flags.unchanged === true }))
    printDiagnostics(io, all)
  }
  return all.some((d) => d.level === "error") ? 1 : 0
}
