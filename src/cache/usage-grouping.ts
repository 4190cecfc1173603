/** What `promptline usage` groups requests by, and the group of a trace line (light: the CLI reads it at start). */
import type { TraceLine } from "./trace-types.js"

/** The groupings, in the order `--by` lists them. */
export const USAGE_GROUPINGS = ["day", "model", "client", "upstream", "conversation"] as const

/** What usage can be grouped by: the day (UTC), the model, the client API, the upstream, the conversation. */
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number]

/** The group a trace line belongs to. */
export function usageGroupOf(line: TraceLine, by: UsageGrouping): string {
  switch (by) {
    case "day":
      return new Date(line.at).toISOString().slice(0, 10)
    case "model":
      return line.model
    case "client":
      return line.clientApi
    case "upstream":
      return line.upstream.name ?? line.upstream.provider ?? line.upstream.format
    case "conversation":
      return line.conversation
  }
}
