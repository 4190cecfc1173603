import type { Diagnostic } from "../diagnostics.js"
import type { Usage } from "../providers/stream.js"

/** Token and cost figures of one turn or of a whole run. */
export interface TurnFigures {
  usage: Usage
  /** Share of prompt tokens read from the provider's cache (0..1). */
  cacheHitRate: number
  /** US dollars, when the model's prices are known. */
  cost?: number
}

/** What the agent reports while it runs; the CLI renders these, `--json` prints them as lines. */
export type AgentEvent =
  | {
      type: "session"
      id: string
      /** The workspace the agent works in. */
      cwd: string
      resumed: boolean
      model: string
      provider: string
      variant: string
      toolCalling: "native" | "xml"
    }
  | { type: "prompt"; hash: string; rebuilt: boolean }
  | { type: "turn_start"; turn: number }
  | { type: "text"; delta: string }
  | { type: "thinking"; delta: string }
  | { type: "tool_call"; id: string; name: string; input: unknown }
  | { type: "tool_result"; id: string; name: string; summary: string; isError: boolean; denied?: boolean }
  | ({
      type: "turn_end"
      turn: number
      stopReason: string
      /** The context manager's calibration of its estimate for the model after this turn's reported usage. */
      calibration?: { model: string; ratio: number; samples: number }
    } & TurnFigures)
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | { type: "notice"; message: string }
  | { type: "diagnostic"; diagnostic: Diagnostic }
  | ({
      type: "done"
      reason: "completed" | "max_turns" | "aborted" | "error" | "answered"
      result?: string
      error?: string
      turns: number
    } & TurnFigures)
