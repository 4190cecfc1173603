import { type PromptContext, parseContext } from "../context/prompt-context.js"
import { providerOf } from "../models/resolve.js"

/** The same context for another model: the provider is guessed from the id unless given. */
export function withModel(context: PromptContext, id: string, provider?: string): PromptContext {
  if (context.model.id === id && (provider === undefined || provider === context.model.provider)) return context
  return parseContext({ ...context, model: { id, provider: provider ?? providerOf(id) ?? context.model.provider } })
}
