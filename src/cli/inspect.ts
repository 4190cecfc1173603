import { Command, InvalidArgumentError, Option } from "commander"
import { PromptlineError } from "../errors.js"
import { DEFAULT_MAX_SHARE } from "../inspect/report.js"
import { MIN_TEXT_WIDTH } from "../inspect/text.js"
import type { ConversationFormat } from "../providers/request-detect.js"
import { type ContextFlags, contextOptions } from "./context-options.js"
import { fromOption, HISTORY_HELP } from "./conversation-option.js"
import type { CliIO } from "./io.js"
import type { CommandFactory } from "./main.js"
import { urlOption } from "./url-option.js"

/** Flags of `promptline inspect`. */
export interface InspectFlags extends ContextFlags {
  json?: boolean
  html?: string
  compare?: string
  maxShare?: number
  lastRun?: boolean
  color?: boolean
  width?: number
  history?: string
  from?: ConversationFormat
  /** A trace file: report on a traced request instead of a build. */
  trace?: string
  /** 1-based request of the trace (default: the last). */
  request?: number
  /** Count the request with the provider's counting endpoint too. */
  exact?: boolean
  /** With --exact: the provider's base URL. */
  baseUrl?: string
  /** A session of `run` whose calibration of the estimate to show. */
  session?: string
}

/** The width of the terminal report when stdout is not a terminal and no `--width` is given. */
export const DEFAULT_WIDTH = 100

/** Parses `--width`: a whole number of columns, at least the narrowest report. */
export function parseWidth(value: string): number {
  const n = Number(value)
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < MIN_TEXT_WIDTH || n > 1000)
    throw new InvalidArgumentError(`expected a whole number of columns from ${MIN_TEXT_WIDTH} to 1000`)
  return n
}

/** The columns of the terminal report: the flag, else the terminal's width, else 100. */
export function reportWidth(io: CliIO, flag: number | undefined): number {
  if (flag !== undefined) return flag
  return io.isTTY === true && io.columns !== undefined && io.columns > 0 ? io.columns : DEFAULT_WIDTH
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

/** Parses `--request`: a request number from 1. */
export function parseRequest(value: string): number {
  const n = Number(value)
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError("expected a request number from 1")
  return n
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
    .addOption(
      new Option(
        "--width <columns>",
        "columns of the terminal report (default: the terminal's width, else 100)",
      ).argParser(parseWidth),
    )
    .option("--history <file>", `place this conversation in the context-window view, counted by kind; ${HISTORY_HELP}`)
    .addOption(fromOption())
    .option(
      "--exact",
      "also count the request with the provider's token-counting endpoint (needs its API key) and show both counts",
    )
    .addOption(urlOption("--base-url <url>", "with --exact: the provider's base URL (a proxy, a local replay server)"))
    .option("--session <id>", "show the calibration of the token estimate kept by this session of promptline run")
    .option("--trace <file>", "report on a request recorded in this trace file (from traffic alone)")
    .addOption(
      new Option("--request <n>", "with --trace: the request to show (default: the last)").argParser(parseRequest),
    )
    .option("--color", "color the terminal report (default: when stdout is a terminal)")
    .option("--no-color", "never color")
    .action(async (flags: InspectFlags) => {
      if (flags.baseUrl !== undefined && !flags.exact)
        throw new PromptlineError("invalid-option", "--base-url is where --exact counts: give --exact with it")
      if (flags.trace && (flags.exact || flags.session))
        throw new PromptlineError(
          "invalid-option",
          `--trace reports recorded traffic (with its own calibration from the usage it reported): it takes no ${flags.exact ? "--exact" : "--session"}`,
        )
      if (flags.trace) {
        const { inspectTraceAction } = await import("./inspect-trace.js")
        setExit(await inspectTraceAction({ ...flags, trace: flags.trace }, io))
        return
      }
      const { inspectAction } = await import("./inspect-action.js")
      setExit(await inspectAction(flags, io))
    })
  return command
}
