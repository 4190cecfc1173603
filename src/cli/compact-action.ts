// The action of `promptline compact`, loaded only when the command runs (see compact.ts for its flags).
import { loadConfig } from "../config/config.js"
import { PromptlineError } from "../errors.js"
import { ContextManager } from "../history/context-manager.js"
import { userRequests } from "../history/requests.js"
import type { CompactFlags } from "./compact.js"
import { homeOf } from "./context-options.js"
import { readHistoryFlag } from "./conversation-option.js"
import type { CliIO } from "./io.js"
import { printDiagnostics, printJson } from "./print.js"

const n = (x: number) => x.toLocaleString("en-US")

/** A number from a flag within bounds, or an invalid-option error naming the flag. */
function numberFlag(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
  integer = false,
): number | undefined {
  if (value === undefined) return undefined
  const x = Number(value)
  if (!(x >= min && x <= max) || (integer && !Number.isInteger(x)))
    throw new PromptlineError(
      "invalid-option",
      `${flag} must be ${integer ? "a whole number" : "a number"} from ${min} to ${max} (got ${JSON.stringify(value)})`,
    )
  return x
}

const short = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim()
  return JSON.stringify(line.length > 70 ? `${line.slice(0, 69)}…` : line)
}

/** Shows what each stage of staged compaction would do to a history; returns the exit code. */
export async function compactAction(flags: CompactFlags, io: CliIO): Promise<number> {
  const threshold = numberFlag("--threshold", flags.threshold, 0, 1) ?? 0.8
  const keepTurns = numberFlag("--keep-turns", flags.keepTurns, 0, 1e6, true) ?? 5
  const keepTail = numberFlag("--keep-tail", flags.keepTail, 1, 1e6, true) ?? 6
  const reserve = numberFlag("--reserve", flags.reserve, 0, Number.MAX_SAFE_INTEGER)
  const history = (await readHistoryFlag(io, flags.history, flags.from)).messages
  const { config } = await loadConfig({ cwd: io.cwd, home: homeOf(io), env: io.env })
  const now = (history.at(-1)?.ts ?? 0) + 1
  const base = { models: config.models, ...(reserve !== undefined ? { reserve } : {}) }
  const plain = await ContextManager.create(base)
  const current = plain.fit(history, { model: flags.model, now })
  const { budget, before } = current.tokens
  const at = Math.floor(budget.effective * threshold)
  // Stage 1 is shown whatever the size (a threshold of 0 forces it); the summary is planned on its result.
  const staged = new ContextManager(plain.counter, { ...base, compaction: { threshold: 0, keepTurns, keepTail } })
  const masked = staged.fit(history, { model: flags.model, now })
  const maskEdits = masked.edits.filter((e) => e.kind === "mask")
  const plan = staged.planSummary(history, { model: flags.model, keepTail })
  const requests = userRequests(history)
  const result = {
    model: { id: current.model.id, contextWindow: budget.window },
    budget: budget.effective,
    threshold: at,
    tokens: before,
    triggered: before > at,
    mask: { results: maskEdits.length, keepTurns, tokensAfter: masked.tokens.after },
    summary: plan
      ? {
          due: masked.summaryDue === true,
          condensed: plan.condensed.length,
          from: plan.from,
          to: plan.to,
          requestTokens: plan.tokens,
          fits: plan.fits,
          masked: plan.masked,
          dropped: plan.dropped,
        }
      : undefined,
    verbatim: { task: requests[0], latestRequest: requests.length > 1 ? requests.at(-1) : undefined },
    diagnostics: current.diagnostics,
  }
  if (flags.json) {
    printJson(io, result)
    return 0
  }
  const pct = Math.round(threshold * 100)
  const lines = [
    `model      ${current.model.id}, window ${n(budget.window)}, budget ${n(budget.effective)}, staged compaction above ${n(at)} (${pct}%)`,
    `tokens     ${n(before)} now: ${before > at ? "over the threshold, the stages below would run" : "under the threshold, nothing would change yet"}`,
    `stage 1    mask: ${n(maskEdits.length)} old tool result${maskEdits.length === 1 ? "" : "s"} become one-line stubs (the last ${keepTurns} turns keep theirs): ${n(before)} → ${n(masked.tokens.after)} tokens`,
    plan
      ? `stage 2    summary: ${masked.summaryDue ? "due after masking" : "not needed after masking"}; would condense ${n(plan.condensed.length)} messages (${plan.from} … ${plan.to}), keeping the first exchange and the last ${keepTail}`
      : "stage 2    summary: nothing to condense",
    ...(plan
      ? [
          `           summarizing request: ${n(plan.tokens)} tokens, ${plan.fits ? "fits" : "does NOT fit"} the budget${plan.masked || plan.dropped ? ` (${plan.masked} results masked, ${plan.dropped} messages left out)` : ""}`,
        ]
      : []),
    `verbatim   task ${requests[0] ? short(requests[0]) : "(none found)"}`,
    ...(requests.length > 1 ? [`           latest request ${short(requests.at(-1)!)}`] : []),
  ]
  io.stdout(`${lines.join("\n")}\n`)
  printDiagnostics(io, current.diagnostics)
  return 0
}
