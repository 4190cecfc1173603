import { wireFormatDescriptors } from "../providers/descriptors.js"
import type { ModelInfo, WireFormat } from "./types.js"

/** Clouds that host several model families (each spoken in its own format). */
const CLOUDS = new Set(["bedrock", "vertex"])

/**
 * The default wire format for a model, as the descriptors' `defaultFor` names it: Anthropic Messages, OpenAI
 * Responses, Gemini or DeepSeek by provider (or a registered format, for a provider its descriptor names); clouds
 * that host several families (Bedrock, Vertex) by family; anything else OpenAI Chat.
 */
export function wireFormatOf(model: Pick<ModelInfo, "provider" | "family">): WireFormat {
  const provider = model.provider.toLowerCase()
  const set = wireFormatDescriptors()
  const byFamily = CLOUDS.has(provider) ? set.find((d) => d.defaultFor.families?.includes(model.family)) : undefined
  return (byFamily ?? set.find((d) => d.defaultFor.providers.includes(provider)))?.format ?? "openai-chat"
}
