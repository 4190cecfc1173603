import type { ModelInfo } from "../types.js"

// Common local models as Ollama names them (LM Studio and llama.cpp serve the same weights).
// The window is the model's native one; the server's configured context (Ollama's num_ctx) may be
// smaller, so callers that know it should override the row. Local models have no prices.

const library = (name: string) => `https://ollama.com/library/${name}`

function local(
  id: string,
  family: string,
  contextWindow: number,
  nativeTools: boolean,
  tokenizer: ModelInfo["tokenizer"] = "estimate",
): ModelInfo {
  const name = id.split(":")[0]!
  return {
    id,
    provider: "ollama",
    family,
    contextWindow,
    maxOutput: Math.min(32_768, Math.floor(contextWindow / 4)),
    tokenizer,
    local: true,
    capabilities: { nativeTools, images: false, thinking: false },
    source: library(name),
    checked: "2026-11-29",
  }
}

/** Local defaults. */
export const localModels: ModelInfo[] = [
  local("qwen3-coder:30b", "qwen", 262_144, true),
  {
    ...local("gpt-oss:20b", "gpt-oss", 131_072, true, "o200k"),
    capabilities: { nativeTools: true, images: false, thinking: true },
  },
  {
    ...local("gpt-oss:120b", "gpt-oss", 131_072, true, "o200k"),
    capabilities: { nativeTools: true, images: false, thinking: true },
  },
  local("devstral:24b", "mistral", 131_072, true),
  local("llama3.1:8b", "llama", 131_072, true),
  local("qwen2.5-coder:7b", "qwen", 32_768, true),
  local("gemma3:27b", "gemma", 131_072, false),
]
