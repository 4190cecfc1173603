import type { ModelInfo, WireFormat } from "./types.js"

/** The wire format each provider speaks by default; any other provider is assumed OpenAI-compatible. */
const BY_PROVIDER: Record<string, WireFormat> = {
  anthropic: "anthropic",
  openai: "openai-responses",
  azure: "openai-responses",
  google: "gemini",
  gemini: "gemini",
  deepseek: "deepseek",
}

/**
 * The default wire format for a model: Anthropic Messages, OpenAI Responses, Gemini or DeepSeek by
 * provider; clouds that host several families (Bedrock, Vertex) by family; anything else OpenAI Chat.
 */
export function wireFormatOf(model: Pick<ModelInfo, "provider" | "family">): WireFormat {
  const provider = model.provider.toLowerCase()
  if (provider === "bedrock" || provider === "vertex") {
    if (model.family === "claude") return "anthropic"
    if (model.family === "gemini") return "gemini"
  }
  return BY_PROVIDER[provider] ?? "openai-chat"
}
