/** The AI SDK's providers as gateway clients: each provider's model for a gateway route. */
import { createAnthropic } from "@ai-sdk/anthropic"
import type { LanguageModel } from "ai"
import { loadPeer } from "../../../test/peers/load.js"
import type { Gateway } from "../server.js"

/** The AI SDK providers tested as clients. */
export const AI_SDK_PROVIDERS = ["anthropic", "openai-chat", "openai-responses", "google"] as const
/** One AI SDK provider. */
export type AiSdkProvider = (typeof AI_SDK_PROVIDERS)[number]

/** Call settings: no retries, and an output limit (the routes' model names are unknown to the AI SDK). */
export const AI_SDK_CALL = { maxRetries: 0, maxOutputTokens: 1000 }

// @ai-sdk/anthropic is a dev dependency; the OpenAI and Google providers are test peers (test/peers/package.json).
type Settings = { baseURL: string; apiKey: string }
const openaiSdk = await loadPeer<{
  createOpenAI(settings: Settings): { chat(id: string): LanguageModel; responses(id: string): LanguageModel }
}>("@ai-sdk/openai")
const googleSdk = await loadPeer<{
  createGoogleGenerativeAI(settings: Settings): (id: string) => LanguageModel
}>("@ai-sdk/google")

/** Whether the AI SDK provider package of `provider` is installed (the OpenAI and Google ones are test peers). */
export function aiSdkProviderInstalled(provider: AiSdkProvider): boolean {
  if (provider === "anthropic") return true
  return provider === "google" ? googleSdk !== undefined : openaiSdk !== undefined
}

/** The AI SDK model of `provider` for a gateway route, its base URL the gateway's. */
export function aiSdkModel(gateway: Gateway, provider: AiSdkProvider, route: string): LanguageModel {
  const urls = gateway.urls
  if (provider === "anthropic") return createAnthropic({ baseURL: `${urls.anthropic}/v1`, apiKey: "client" })(route)
  if (provider === "google")
    return googleSdk!.createGoogleGenerativeAI({ baseURL: `${urls.gemini}/v1beta`, apiKey: "client" })(route)
  const openai = openaiSdk!.createOpenAI({ baseURL: urls.openai, apiKey: "client" })
  return provider === "openai-chat" ? openai.chat(route) : openai.responses(route)
}
