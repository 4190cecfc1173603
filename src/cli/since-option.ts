/**
 * `--since`: a day (`2026-11-01`, from its start in UTC), a moment with its zone (`2026-11-01T09:30Z`,
 * `2026-11-01T09:30:00+01:00`), or a span back from now (`30m`, `24h`, `7d`, `2w`). The clock is read only for a
 * span, once, through `now`.
 */
import { PromptlineError } from "../errors.js"

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/
const MOMENT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/

/** The time `--since` names, in milliseconds since the epoch. */
export function sinceTime(text: string, now: () => number): number {
  const value = text.trim()
  const span = /^(\d+)\s*([mhdw])$/.exec(value)
  if (span) return now() - Number(span[1]) * UNITS[span[2]!]!
  const day = DAY.exec(value)
  if (day) {
    const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])]
    const at = Date.UTC(y, m - 1, d)
    // Date.UTC rolls 2026-02-30 over to March: a day that does not exist is refused.
    if (new Date(at).toISOString().slice(0, 10) === value) return at
  } else if (MOMENT.test(value)) {
    const at = Date.parse(value)
    if (Number.isFinite(at)) return at
  }
  throw new PromptlineError(
    "invalid-option",
    `--since takes a day (2026-11-01, UTC), a moment with its zone (2026-11-01T09:30Z) or a span back from now (30m, 24h, 7d, 2w); got ${JSON.stringify(text)}`,
  )
}
