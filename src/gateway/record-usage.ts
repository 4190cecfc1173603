/** A gateway record as the usage tally and the cost read it: the model that answered, its usage, failed or not. */
import type { UsageEntry } from "../cache/usage.js"
import type { GatewayRecord } from "./record.js"

/** The model a record is priced as: the upstream's model, else the one the client asked for. */
export function pricedModel(record: GatewayRecord): string {
  return record.upstream?.model ?? record.model
}

/**
 * A record as the usage tally reads it (failed: an error, or an error status sent to the client; a fallback: more
 * than one upstream in its chain, as a trace line counts it).
 */
export function usageEntryOfRecord(record: GatewayRecord): UsageEntry {
  return {
    model: pricedModel(record),
    ...(record.usage ? { usage: record.usage } : {}),
    failed: record.error !== undefined || record.status >= 400,
    fallback: (record.attempts?.length ?? 0) > 1,
  }
}
