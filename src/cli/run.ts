import { Command, Option } from "commander"
import type { ApprovalPolicy } from "../agent/approval.js"
import type { WireFormat } from "../models/types.js"
import { wireFormats } from "../providers/descriptors.js"
import { type ContextFlags, contextOptions } from "./context-options.js"
import type { CommandFactory } from "./main.js"
import { urlOption } from "./url-option.js"

/** Flags of `promptline run`. */
export interface RunFlags extends ContextFlags {
  baseUrl?: string
  websocket?: boolean
  format?: WireFormat
  replay?: string
  approve?: ApprovalPolicy
  maxTurns: string
  json?: boolean
  resume?: string
  plan?: boolean
  auto?: boolean
  compaction: "staged" | "truncate" | "provider"
  compactAt?: string
  trace?: string
}

/** `promptline run`: the reference agent. */
export const runCommand: CommandFactory = (io, setExit) => {
  const command = new Command("run")
    .description("run the reference agent on a task (against a provider, or a local replay script)")
    .argument("[task...]", "what to do (default: the replay script's task)")
  for (const option of contextOptions()) command.addOption(option)
  command
    .addOption(urlOption("--base-url <url>", "the provider's base URL (OpenAI-compatible servers, proxies)"))
    .addOption(new Option("--format <wire>", "the wire format to speak").choices([...wireFormats()]))
    .option("--websocket", "OpenAI Responses over one WebSocket kept open across turns")
    .option("--replay <script>", "answer from a replay script on a local server, in a copy of its sample workspace")
    .addOption(
      new Option(
        "--approve <policy>",
        [
          "which tool calls run without asking (default: ask at a terminal, reads without one, all with --replay)",
          "ask: every call is put to you first (refused when nobody is at a terminal)",
          "reads: calls that only read run; the others are put to you (refused without a terminal)",
          "all: every call runs",
        ].join("\n"),
      ).choices(["ask", "reads", "all"]),
    )
    .addOption(new Option("--max-turns <n>", "stop after this many model turns").default("40", "40"))
    .option("--json", "print events as JSON lines")
    .option("--resume <id>", "continue an interrupted session")
    .option("--plan", "start in plan mode")
    .option("--auto", "run without asking the user anything (autonomy auto)")
    .addOption(
      new Option(
        "--compaction <strategy>",
        [
          "how a long session stays in the window",
          "staged: mask old tool results, then summarize, then cut old messages",
          "truncate: cut old messages only",
          "provider: let the provider compact (Anthropic, OpenAI Responses; staged elsewhere)",
        ].join("\n"),
      )
        .choices(["staged", "truncate", "provider"])
        .default("staged"),
    )
    .option("--compact-at <fraction>", "staged compaction starts above this share of the budget (default 0.5)")
    .option("--trace <dir>", "record every request with its cache verdict in this trace folder (see promptline traces)")
    .action(async (words: string[], flags: RunFlags) => {
      const { runAgent } = await import("./run-agent.js")
      setExit(await runAgent(words.join(" ").trim(), flags, io))
    })
  return command
}
