/** promptline's own count of a translated request's input, for client formats that report it before the answer. */
import type { Message } from "../history/message.js"
import { countRequest } from "../history/request-count.js"
import type { TokenCounter } from "../history/tokens.js"
import type { ModelInfo, WireFormat } from "../models/types.js"
import { formatModule } from "../providers/formats.js"
import type { PromptInput } from "../providers/types.js"

/** The input tokens of a request as `model` gets it in `format`: system prompt, tools, messages and framing. */
export function promptTokens(
  counter: TokenCounter,
  prompt: PromptInput,
  messages: readonly Message[],
  model: ModelInfo,
  format: WireFormat,
): number {
  return countRequest(counter, prompt, messages, model.tokenizer, formatModule(format).overhead)
}
