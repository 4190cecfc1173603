// The action of `promptline inspect`, loaded only when the command runs (see inspect.ts for its flags).
import { homedir } from "node:os"
import { resolve } from "node:path"
import { readSessionMeta } from "../agent/session.js"
import { writeFileAtomic } from "../atomic-write.js"
import { promptlineCacheDir } from "../context/user-roots.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { FileError } from "../errors.js"
import { ContextManager } from "../history/context-manager.js"
import { TokenCounter } from "../history/tokens.js"
import { diffBuilds } from "../inspect/build-diff.js"
import { lastRunFile, readLastRuns, saveLastRun } from "../inspect/last-run.js"
import { renderDiff } from "../inspect/render-diff.js"
import { type HtmlComparison, renderHtml } from "../inspect/render-html.js"
import { renderText } from "../inspect/render-text.js"
import { type CalibrationReport, DEFAULT_MAX_SHARE, inspectReport } from "../inspect/report.js"
import { warningList } from "../inspect/warning-list.js"
import { withModel } from "../inspect/with-model.js"
import { PromptBuilder } from "../prompt/builder.js"
import { contextFrom } from "./context-source.js"
import { readHistoryFlag } from "./conversation-option.js"
import { type InspectFlags, reportWidth, useColor } from "./inspect.js"
import { exactCount } from "./inspect-exact.js"
import type { CliIO } from "./io.js"
import { printJson } from "./print.js"
import { projectServerRefusal } from "./project-endpoint.js"

/** Builds, reports and prints for `promptline inspect`; returns the exit code. */
export async function inspectAction(flags: InspectFlags, io: CliIO): Promise<number> {
  const { context, diagnostics, report: gathered, config, providerChosenBy } = await contextFrom(flags, io)
  const history = flags.history ? (await readHistoryFlag(io, flags.history, flags.from)).messages : undefined
  const counter = await TokenCounter.create()
  const builder = new PromptBuilder({ models: config.models })
  const built = builder.build(context)
  const workspace = resolve(io.cwd, flags.cwd ?? ".")
  const remember = flags.lastRun !== false
  const stateFile = lastRunFile(promptlineCacheDir(io.env.HOME ?? homedir(), io.env), workspace)
  const last = remember ? await readLastRuns(stateFile) : undefined
  const previous = last?.runs.models[built.model.id]
  const before: Diagnostic[] = [...diagnostics, ...(last?.diagnostics ?? [])]
  const report = inspectReport({
    built,
    context,
    counter,
    ...(gathered ? { gather: gathered } : {}),
    ...(previous ? { previous } : {}),
    maxShare: flags.maxShare ?? DEFAULT_MAX_SHARE,
    diagnostics: before,
    ...(history ? { history } : {}),
  })
  let compare: HtmlComparison | undefined
  if (flags.compare) {
    const other = withModel(context, flags.compare)
    const otherReport = inspectReport({
      built: builder.build(other),
      context: other,
      counter,
      ...(gathered ? { gather: gathered } : {}),
      maxShare: flags.maxShare ?? DEFAULT_MAX_SHARE,
      ...(history ? { history } : {}),
    })
    compare = { report: otherReport, diff: diffBuilds(report, otherReport) }
  }
  const calibrations: CalibrationReport[] = []
  if (flags.session) {
    const meta = await readSessionMeta(workspace, flags.session, { home: io.env.HOME ?? homedir(), env: io.env })
    const kept = meta.calibration?.[built.model.id]
    if (kept) calibrations.push({ model: built.model.id, ...kept, source: "session", from: meta.id })
    else {
      const others = Object.keys(meta.calibration ?? {})
      const which = others.length > 0 ? `only for ${others.join(", ")}` : "no reported usage yet"
      const message = `session ${meta.id} has no calibration for ${built.model.id} (${which})`
      report.diagnostics.push(diagnostic("info", "session-no-calibration", message))
    }
  }
  if (flags.exact) {
    const refused =
      flags.baseUrl === undefined ? projectServerRefusal(providerChosenBy, built.model.provider) : undefined
    const manager = new ContextManager(counter, { models: config.models })
    const counted = await exactCount({
      built,
      ...(history ? { history } : {}),
      manager,
      env: io.env,
      ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
      ...(refused !== undefined ? { refused } : {}),
    })
    report.exact = counted.exact
    if (counted.exact.status === "unavailable")
      report.diagnostics.push(diagnostic("warning", counted.exact.code, counted.exact.reason))
    else if (counted.calibration)
      calibrations.push({
        model: built.model.id,
        ...counted.calibration,
        source: "endpoint",
        from: counted.exact.endpoint,
      })
  }
  if (calibrations.length > 0) report.calibrations = calibrations
  if (last) {
    try {
      await saveLastRun(stateFile, last.runs, built.model.id, report.lastRun)
    } catch (error) {
      const message = `cannot record this run for the next tool-order check (${(error as Error).message})`
      report.diagnostics.push(diagnostic("warning", "last-run-unwritable", message, { path: stateFile }))
    }
  }

  if (flags.html) {
    try {
      await writeFileAtomic(resolve(io.cwd, flags.html), renderHtml(report, compare))
    } catch (error) {
      throw new FileError("html-unwritable", flags.html, `cannot write the HTML report (${(error as Error).message})`, {
        cause: error,
      })
    }
    const n = warningList(report).problems.length
    io.stdout(`HTML report written to ${flags.html} (${n} warning${n === 1 ? "" : "s"})\n`)
  } else if (flags.json) {
    printJson(io, compare ? { ...report, compare: { report: compare.report, diff: compare.diff } } : report)
  } else {
    const color = useColor(io, flags.color)
    io.stdout(renderText(report, { color, width: reportWidth(io, flags.width) }))
    if (compare) io.stdout(`\n${renderDiff(compare.diff, { color, unchangedSections: false })}`)
  }
  return report.diagnostics.some((d) => d.level === "error") ? 1 : 0
}
