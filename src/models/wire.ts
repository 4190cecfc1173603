import { WIRE_FORMAT_DESCRIPTORS } from "../providers/descriptors.js"
import type { ModelInfo, WireFormat } from "./types.js"

/** The wire format each provider speaks by default (the descriptors' `defaultFor`); any other is OpenAI-compatible. */
const BY_PROVIDER: ReadonlyMap<string, WireFormat> = new Map(
  WIRE_FORMAT_DESCRIPTORS.flatMap((d) => d.defaultFor.providers.map((p) => [p, d.format] as const)),
)

/** On clouds that host several families, the format of each family the descriptors name. */
const BY_FAMILY: ReadonlyMap<string, WireFormat> = new Map(
  WIRE_FORMAT_DESCRIPTORS.flatMap((d) =>
    ("families" in d.defaultFor ? d.defaultFor.families : []).map((f) => [f, d.format] as const),
  ),
)

/** Clouds that host several model families (each spoken in its own format). */
const CLOUDS = new Set(["bedrock", "vertex"])

/**
 * The default wire format for a model: Anthropic Messages, OpenAI Responses, Gemini or DeepSeek by
 * provider; clouds that host several families (Bedrock, Vertex) by family; anything else OpenAI Chat.
 */
export function wireFormatOf(model: Pick<ModelInfo, "provider" | "family">): WireFormat {
  const provider = model.provider.toLowerCase()
  if (CLOUDS.has(provider)) {
    const byFamily = BY_FAMILY.get(model.family)
    if (byFamily) return byFamily
  }
  return BY_PROVIDER.get(provider) ?? "openai-chat"
}
