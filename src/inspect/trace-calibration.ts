/**
 * The context manager's calibration of its estimate, replayed over a trace: each request up to the one shown
 * that has reported usage and a body its format can decode is counted as the manager counts a request it sends
 * (`measure`), and the reported prompt tokens (input + cache reads + cache writes) are observed against it.
 */

import type { TraceLine } from "../cache/trace-types.js"
import { ContextManager } from "../history/context-manager.js"
import { promptCount } from "../history/request-count.js"
import type { TokenCounter } from "../history/tokens.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"
import { formatModule } from "../providers/formats.js"
import type { CalibrationReport } from "./report-types.js"

/** What a trace calibration is made from. */
export interface TraceCalibrationInput {
  file: string
  lines: readonly TraceLine[]
  /** The request shown: requests after it are not observed. */
  request: number
  /** The body a line sent, rebuilt from the trace. */
  bodyOf: (line: TraceLine) => Promise<unknown>
  counter: TokenCounter
  models?: readonly ModelInfo[]
}

/** The moving ratio for the shown request's model as it stood at that request, or undefined without usage to go on. */
export async function traceCalibration(input: TraceCalibrationInput): Promise<CalibrationReport | undefined> {
  const models = input.models ?? []
  const manager = new ContextManager(input.counter, { models })
  const shown = input.lines.find((l) => l.n === input.request)
  if (!shown) return undefined
  const target = resolveModel(shown.model, { models }).model
  for (const line of input.lines) {
    if (line.n > input.request || !line.usage) continue
    const reported = line.usage.input + line.usage.cacheRead + line.usage.cacheWrite
    const model = resolveModel(line.model, { models }).model
    if (reported <= 0 || model.id !== target.id) continue
    const decode = formatModule(line.upstream.format).decodeRequest
    if (!decode) continue
    let decoded: ReturnType<typeof decode>
    try {
      decoded = decode(await input.bodyOf(line), { model: line.model })
    } catch {
      continue // a body the decoder refuses is left out of the ratio
    }
    const measured = manager.measure(decoded.messages, {
      model,
      ...promptCount(decoded.prompt),
      wireFormat: line.upstream.format,
    })
    manager.observe(measured, reported)
  }
  const calibration = manager.calibration(target.id)
  return calibration && { model: target.id, ...calibration, source: "trace", from: input.file }
}
