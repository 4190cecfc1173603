/**
 * What a request's prompt adds to its token count, read one way by every counter (the context manager's fit and
 * measure, the gateway's counts, the agent, `inspect --exact`, trace calibration): the system prompt, and each tool
 * definition's name, description and JSON Schema unless the tools are written into the system prompt (XML dialect).
 */

import type { TokenizerFamily } from "../models/types.js"
import type { Message } from "./message.js"
import type { Overhead, TokenCounter } from "./tokens.js"

/** A tool definition as far as counting goes. */
export interface CountedTool {
  name: string
  description?: string
  parameters?: unknown
}

/** A prompt as the encoders take it: its text, its tools, and whether the tools go natively or as XML in the text. */
export interface CountedPrompt {
  text: string
  tools: readonly CountedTool[]
  toolCalling?: "native" | "xml"
}

/** The system prompt and tool definitions a request counts (no tools in the XML dialect: the text documents them). */
export function promptCount(prompt: CountedPrompt): { system: string; tools: CountedTool[] } {
  const tools =
    prompt.toolCalling === "xml"
      ? []
      : prompt.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))
  return { system: prompt.text, tools }
}

/** The input tokens of a whole request in one tokenizer family and wire format: system prompt, tools, messages, framing. */
export function countRequest(
  counter: TokenCounter,
  prompt: CountedPrompt,
  messages: readonly Message[],
  family: TokenizerFamily,
  overhead: Overhead,
): number {
  const { system, tools } = promptCount(prompt)
  return (
    (system ? counter.countText(system, family) : 0) +
    counter.countTools(tools, family, overhead) +
    counter.countMessages(messages, family, overhead)
  )
}
