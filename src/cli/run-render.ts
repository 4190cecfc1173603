import type { AgentEvent, TurnFigures } from "../agent/events.js"
import { formatDiagnostic } from "../diagnostics.js"

const n = (v: number) => v.toLocaleString("en-US")
/** Dollars with one precision for every line of a run, so figures line up and compare. */
const money = (v: number | undefined) => (v === undefined ? "" : ` · $${v.toFixed(4)}`)

function figures(f: TurnFigures, simulated: boolean): string {
  const prompt = f.usage.input + f.usage.cacheRead + f.usage.cacheWrite
  // A scripted model has no cache and no price: its token figures are the replay server's estimates.
  if (simulated) return `in ${n(prompt)} · out ${n(f.usage.output)} (simulated: scripted model, no cache or cost)`
  return `in ${n(prompt)} (cache hit ${(f.cacheHitRate * 100).toFixed(0)}%) · out ${n(f.usage.output)}${money(f.cost)}`
}

function brief(input: unknown): string {
  if (input === null || typeof input !== "object") return JSON.stringify(input) ?? ""
  const entries = Object.entries(input as Record<string, unknown>).filter(([k]) => k !== "task_progress")
  const text = entries.map(([k, v]) => `${k}=${typeof v === "string" ? v.split("\n")[0] : JSON.stringify(v)}`).join(" ")
  return text.length > 100 ? `${text.slice(0, 100)}…` : text
}

/** Renders agent events for a person: streamed text, one line per tool call, a line per turn, a summary. */
export class RunRenderer {
  #midLine = false
  /** The last calibration of the estimate a turn reported, shown with the summary. */
  #calibration: { model: string; ratio: number; samples: number } | undefined
  /** `simulated`: the model is a replay script, so cache and cost figures mean nothing. */
  constructor(
    private readonly write: (text: string) => void,
    private readonly options: { simulated?: boolean } = {},
  ) {}

  #line(text: string): void {
    this.endLine()
    this.write(`${text}\n`)
  }

  /** Ends a line the streamed text left open, so what is written next starts a line of its own. */
  endLine(): void {
    if (this.#midLine) this.write("\n")
    this.#midLine = false
  }

  /** Writes a status line of the run's own (a cache verdict, a note), never glued to the model's text. */
  status(text: string): void {
    this.#line(text.endsWith("\n") ? text.slice(0, -1) : text)
  }

  /** Renders one event. */
  render(event: AgentEvent): void {
    switch (event.type) {
      case "session":
        this.#line(
          `${event.resumed ? "resumed" : "session"} ${event.id} · ${event.model} (${event.provider}) · variant ${event.variant} · ${event.toolCalling} tools`,
        )
        break
      case "prompt":
        this.#line(`  prompt ${event.hash.slice(0, 12)}${event.rebuilt ? " (rebuilt)" : ""}`)
        break
      case "text":
        this.write(event.delta)
        this.#midLine = !event.delta.endsWith("\n")
        break
      case "tool_call":
        this.#line(`→ ${event.name} ${brief(event.input)}`)
        break
      case "tool_result":
        this.#line(`  ${event.denied ? "⊘" : event.isError ? "✗" : "✓"} ${event.summary}`)
        break
      case "turn_end":
        this.#line(`  · turn ${event.turn} · ${figures(event, this.options.simulated === true)}`)
        if (event.calibration) this.#calibration = event.calibration
        break
      case "retry":
        this.#line(`  retry ${event.attempt} in ${(event.delayMs / 1000).toFixed(1)} s: ${event.reason}`)
        break
      case "notice":
        this.#line(`  note: ${event.message}`)
        break
      case "diagnostic":
        if (event.diagnostic.level !== "info") this.#line(`  ${formatDiagnostic(event.diagnostic)}`)
        break
      case "done": {
        const what = {
          completed: "completed",
          answered: "answered",
          max_turns: "stopped at the turn limit",
          aborted: "interrupted",
          error: "failed",
        }[event.reason]
        this.#line(
          `\n${what} after ${event.turns} turn${event.turns === 1 ? "" : "s"} · ${figures(event, this.options.simulated === true)}`,
        )
        if (event.result) this.#line(event.result)
        if (event.error) this.#line(`error: ${event.error}`)
        const c = this.#calibration
        if (c)
          this.#line(
            `token estimate for ${c.model}: reported ÷ counted ${c.ratio.toFixed(3)} over ${c.samples} request${c.samples === 1 ? "" : "s"} (${this.options.simulated ? "simulated: the replay server's usage; " : ""}kept in the session)`,
          )
        break
      }
      case "turn_start":
      case "thinking":
        break
    }
  }
}
