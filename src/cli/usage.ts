import { resolve } from "node:path"
import { Command, Option } from "commander"
import { USAGE_GROUPINGS, type UsageGrouping } from "../cache/usage-grouping.js"
import type { CommandFactory } from "./main.js"

/** Flags of `promptline usage`. */
export interface UsageFlags {
  by?: UsageGrouping
  since?: string
  json?: boolean
  html?: string
}

/**
 * `promptline usage [DIR]`: what the traced requests used and cost: requests, input, cached, cache-write and output
 * tokens, cached share, cost at catalog prices (input and output; `$?` where a model has no price), errors and
 * fallbacks, in total or grouped.
 */
export const usageCommand: CommandFactory = (io, setExit) =>
  new Command("usage")
    .description(
      "sum traced requests: tokens (input, cached, cache writes, output), cached share, cost at catalog prices, errors, fallbacks",
    )
    .argument("[dir]", "the trace folder (default: the config's traces.dir, else promptline's cache folder)")
    .addOption(
      new Option(
        "--by <group>",
        [
          "one row per group, with the total under them",
          "day: the day each request arrived (UTC)",
          "model: the model that answered",
          "client: the API the client spoke",
          "upstream: the upstream the gateway sent the request to",
          "conversation: the traced conversation",
        ].join("\n"),
      ).choices([...USAGE_GROUPINGS]),
    )
    .option(
      "--since <when>",
      "only requests from then on: a day (2026-11-01, UTC), a moment (2026-11-01T09:30Z) or a span back from now (24h, 7d)",
    )
    .option("--json", "print the report as JSON (docs/usage.md describes its fields)")
    .option("--html <file>", "write the report as one self-contained HTML page")
    .action(async (dir: string | undefined, flags: UsageFlags) => {
      const { usageAction } = await import("./usage-action.js")
      setExit(await usageAction(dir ? resolve(io.cwd, dir) : undefined, flags, io))
    })
