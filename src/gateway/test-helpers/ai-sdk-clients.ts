/** The AI SDK's providers as gateway clients: each provider's model for a gateway route. */
import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import type { LanguageModel } from "ai"
import type { Gateway } from "../server.js"

/** The AI SDK providers tested as clients. */
export const AI_SDK_PROVIDERS = ["anthropic", "openai-chat", "openai-responses", "google"] as const
/** One AI SDK provider. */
export type AiSdkProvider = (typeof AI_SDK_PROVIDERS)[number]

/** Call settings: no retries, and an output limit (the routes' model names are unknown to the AI SDK). */
export const AI_SDK_CALL = { maxRetries: 0, maxOutputTokens: 1000 }

/** The AI SDK model of `provider` for a gateway route, its base URL the gateway's. */
export function aiSdkModel(gateway: Gateway, provider: AiSdkProvider, route: string): LanguageModel {
  const urls = gateway.urls
  if (provider === "anthropic") return createAnthropic({ baseURL: `${urls.anthropic}/v1`, apiKey: "client" })(route)
  if (provider === "google")
    return createGoogleGenerativeAI({ baseURL: `${urls.gemini}/v1beta`, apiKey: "client" })(route)
  const openai = createOpenAI({ baseURL: urls.openai, apiKey: "client" })
  return provider === "openai-chat" ? openai.chat(route) : openai.responses(route)
}
