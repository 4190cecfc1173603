import { homedir } from "node:os"
import { resolve } from "node:path"
import { Command, InvalidArgumentError, Option } from "commander"
import { writeFileAtomic } from "../atomic-write.js"
import { promptlineCacheDir } from "../context/user-roots.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { FileError } from "../errors.js"
import { TokenCounter } from "../history/tokens.js"
import { diffBuilds } from "../inspect/build-diff.js"
import { lastRunFile, readLastRuns, saveLastRun } from "../inspect/last-run.js"
import { renderDiff } from "../inspect/render-diff.js"
import { type HtmlComparison, renderHtml } from "../inspect/render-html.js"
import { renderText } from "../inspect/render-text.js"
import { DEFAULT_MAX_SHARE, inspectReport } from "../inspect/report.js"
import { withModel } from "../inspect/with-model.js"
import { PromptBuilder } from "../prompt/builder.js"
import { type ContextFlags, contextFrom, contextOptions } from "./context-source.js"
import type { CliIO } from "./io.js"
import type { CommandFactory } from "./main.js"
import { printJson } from "./print.js"

interface InspectFlags extends ContextFlags {
  json?: boolean
  html?: string
  compare?: string
  maxShare?: number
  lastRun?: boolean
  color?: boolean
}

/** Parses a share given as a fraction (`0.1`) or a percentage (`10%`). */
export function parseShare(value: string): number {
  const percent = value.trim().endsWith("%")
  const n = Number(percent ? value.trim().slice(0, -1) : value)
  const share = percent ? n / 100 : n
  if (!Number.isFinite(share) || share <= 0 || share > 1)
    throw new InvalidArgumentError("expected a share of the window: a fraction in (0, 1] or a percentage like 10%")
  return share
}

/** Whether to color terminal output: the flag, else a terminal without NO_COLOR. */
export function useColor(io: CliIO, flag: boolean | undefined): boolean {
  if (flag !== undefined) return flag
  return io.isTTY === true && !io.env.NO_COLOR
}

/** `promptline inspect`: what the model receives, what each part costs, the cache layout, and warnings. */
export const inspectCommand: CommandFactory = (io, setExit) => {
  const command = new Command("inspect").description(
    "show each section and tool with its token cost, the instruction files, the cache layout and warnings",
  )
  for (const option of contextOptions()) command.addOption(option)
  command
    .addOption(
      new Option("--max-share <share>", "warn when the prompt takes more of the model's window than this")
        .argParser(parseShare)
        .default(DEFAULT_MAX_SHARE, "10%"),
    )
    .option("--json", "print the report as JSON")
    .option("--html <file>", "write a self-contained HTML report to this file")
    .option("--compare <model>", "also build for this model and show the differences")
    .option("--no-last-run", "neither read nor record the last run (the tool-order check, kept in the user's cache)")
    .option("--color", "color the terminal report (default: when stdout is a terminal)")
    .option("--no-color", "never color")
    .action(async (flags: InspectFlags) => {
      const { context, diagnostics, report: gathered, config } = await contextFrom(flags, io)
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
        })
        compare = { report: otherReport, diff: diffBuilds(report, otherReport) }
      }
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
          throw new FileError(
            "html-unwritable",
            flags.html,
            `cannot write the HTML report (${(error as Error).message})`,
            {
              cause: error,
            },
          )
        }
        const n = report.warnings.filter((d) => d.level !== "info").length
        io.stdout(`HTML report written to ${flags.html} (${n} warning${n === 1 ? "" : "s"})\n`)
      } else if (flags.json) {
        printJson(io, compare ? { ...report, compare: { report: compare.report, diff: compare.diff } } : report)
      } else {
        const color = useColor(io, flags.color)
        io.stdout(renderText(report, { color }))
        if (compare) io.stdout(`\n${renderDiff(compare.diff, { color, unchangedSections: false })}`)
      }
      setExit(report.diagnostics.some((d) => d.level === "error") ? 1 : 0)
    })
  return command
}
