import { PromptlineError } from "../errors.js"
import { isHttpUrl } from "../http-url.js"
import { UNKNOWN_PROVIDER } from "../models/resolve.js"
import { wireFormatOf } from "../models/wire.js"
import type { AuthStyle, WireFormatDescriptor } from "./descriptor.js"
import {
  descriptorOf,
  WIRE_FORMAT_DESCRIPTORS,
  WIRE_FORMATS,
  type WireFormat,
  wireFormatDescriptors,
} from "./descriptors.js"

/** How a provider takes its key: Anthropic's header, a Bearer token, Google's header, or not at all. */
export type { AuthStyle }

/** One row of the provider registry: where a provider listens and how it is spoken to. */
export interface ProviderInfo {
  /** The id used on the command line and in ModelInfo.provider. */
  id: string
  /** A human name for messages. */
  name: string
  /** The default base URL, without a trailing slash. */
  baseUrl: string
  /** The path under the base URL per wire format it speaks (streamed answers); `{model}` stands for the model id. */
  paths: Partial<Record<WireFormat, string>>
  /** Where the path differs for an answer that is not streamed (Gemini); otherwise `paths` serves both. */
  unaryPaths?: Partial<Record<WireFormat, string>>
  auth: AuthStyle
  /** Environment variables that may hold the key, in order of preference; empty when none is needed. */
  keyEnv: readonly string[]
  /** An environment variable that overrides the base URL, as the provider's own SDK reads it. */
  baseUrlEnv?: string
  /** Headers every request carries besides the key. */
  headers?: Readonly<Record<string, string>>
  /** True for servers on the user's machine (no key needed). */
  local?: boolean
}

/** What a registry row says itself; paths, auth and headers come from the descriptors of the formats it speaks. */
type ProviderRow = Omit<ProviderInfo, "paths" | "unaryPaths" | "auth" | "headers"> & {
  /** The formats it speaks, its own first (whose auth it takes). */
  formats: readonly WireFormat[]
  /** Set for servers that need no key. */
  auth?: "none"
}

/** A registry row with each format's endpoint (path, unary path, auth of the first, headers) from its descriptor. */
function provider({ formats, ...row }: ProviderRow): ProviderInfo {
  const descriptors: readonly WireFormatDescriptor[] = formats.map((f) => descriptorOf(f))
  const unary = descriptors.filter((d) => d.endpoint.unaryPath !== undefined)
  const headers = Object.assign({}, ...descriptors.map((d) => d.endpoint.headers ?? {})) as Record<string, string>
  return {
    ...row,
    paths: Object.fromEntries(descriptors.map((d) => [d.format, d.endpoint.path])),
    ...(unary.length > 0 ? { unaryPaths: Object.fromEntries(unary.map((d) => [d.format, d.endpoint.unaryPath])) } : {}),
    auth: row.auth ?? descriptors[0]!.endpoint.auth,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  }
}

/** What OpenAI-compatible servers speak: the built-in formats whose descriptor says so (Chat, DeepSeek's flavour, Responses). */
const COMPATIBLE_FORMATS: readonly WireFormat[] = WIRE_FORMAT_DESCRIPTORS.filter(
  (d) => "compatible" in d.endpoint && d.endpoint.compatible,
).map((d) => d.format)
const compatible = (id: string, name: string, baseUrl: string, keyEnv: string[], local = false): ProviderInfo =>
  provider({
    id,
    name,
    baseUrl,
    formats: COMPATIBLE_FORMATS,
    ...(keyEnv.length > 0 ? {} : { auth: "none" as const }),
    keyEnv,
    ...(local ? { local } : {}),
  })

const GEMINI: ProviderInfo = provider({
  id: "gemini",
  name: "Gemini",
  baseUrl: "https://generativelanguage.googleapis.com",
  formats: ["gemini"],
  keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
})

/** The providers promptline knows, by id. Any other id needs a base URL and is spoken to as OpenAI-compatible. */
export const PROVIDERS: Readonly<Record<string, ProviderInfo>> = {
  anthropic: provider({
    id: "anthropic",
    name: "Anthropic",
    baseUrl: "https://api.anthropic.com",
    formats: ["anthropic"],
    keyEnv: ["ANTHROPIC_API_KEY"],
    baseUrlEnv: "ANTHROPIC_BASE_URL",
  }),
  openai: provider({
    id: "openai",
    name: "OpenAI",
    baseUrl: "https://api.openai.com/v1",
    formats: ["openai-responses", "openai-chat"],
    keyEnv: ["OPENAI_API_KEY"],
    baseUrlEnv: "OPENAI_BASE_URL",
  }),
  gemini: GEMINI,
  google: { ...GEMINI, id: "google" },
  deepseek: provider({
    id: "deepseek",
    name: "DeepSeek",
    baseUrl: "https://api.deepseek.com",
    formats: ["deepseek", "openai-chat"],
    keyEnv: ["DEEPSEEK_API_KEY"],
  }),
  openrouter: compatible("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", ["OPENROUTER_API_KEY"]),
  xai: compatible("xai", "xAI", "https://api.x.ai/v1", ["XAI_API_KEY"]),
  mistral: {
    ...compatible("mistral", "Mistral", "https://api.mistral.ai/v1", ["MISTRAL_API_KEY"]),
    paths: provider({ id: "", name: "", baseUrl: "", keyEnv: [], formats: ["openai-chat"] }).paths,
  },
  qwen: compatible("qwen", "Qwen (Alibaba Model Studio)", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", [
    "DASHSCOPE_API_KEY",
  ]),
  ollama: compatible("ollama", "Ollama", "http://localhost:11434/v1", [], true),
  lmstudio: compatible("lmstudio", "LM Studio", "http://localhost:1234/v1", [], true),
  vllm: compatible("vllm", "vLLM", "http://localhost:8000/v1", [], true),
  "llama.cpp": compatible("llama.cpp", "llama.cpp", "http://localhost:8080/v1", [], true),
  llamacpp: compatible("llamacpp", "llama.cpp", "http://localhost:8080/v1", [], true),
}

/** Where one provider is reached for one wire format, with the headers that authenticate. */
export interface Endpoint {
  provider: string
  format: WireFormat
  /** The base URL in use (default, environment or override), without a trailing slash. */
  baseUrl: string
  /** Headers for every request: content type, key, version headers. */
  headers: Readonly<Record<string, string>>
  /** Where the environment or the caller's key came from (`ANTHROPIC_API_KEY`, `option`), or `none`. */
  keySource: string
}

/** What `endpointFor` needs: a provider id, optionally a wire format, the environment and overrides. */
export interface EndpointRequest {
  provider: string
  /** Default: the provider's default format (OpenAI: Responses). */
  format?: WireFormat
  /** The environment to read keys and base-URL overrides from (pass `process.env`). */
  env: Readonly<Record<string, string | undefined>>
  /** Overrides the base URL (and the environment's override). */
  baseUrl?: string
  /** Overrides the key; an empty string sends no credential. */
  apiKey?: string
  /** Extra headers (OpenRouter's `HTTP-Referer`, a proxy's token); they win over the defaults. */
  headers?: Readonly<Record<string, string>>
}

/** A provider needs a key and none was found; the message is one line naming the variable to set. */
export class MissingKeyError extends PromptlineError {
  readonly provider: string
  readonly variables: readonly string[]
  constructor(provider: ProviderInfo) {
    const names = provider.keyEnv.join(" or ")
    super("missing-api-key", `${provider.name} needs an API key: set ${names}.`)
    this.provider = provider.id
    this.variables = provider.keyEnv
  }
}

/** The provider is unknown and no base URL says where it is, or it does not speak the asked wire format. */
export class EndpointError extends PromptlineError {}

/** The registered formats (beyond the built-in ones) whose descriptor names `provider` among those it is the default of. */
function registeredFor(provider: string): WireFormat[] {
  const builtIn = new Set<string>(WIRE_FORMATS)
  return wireFormatDescriptors()
    .filter((d) => !builtIn.has(d.format) && d.defaultFor.providers.includes(provider))
    .map((d) => d.format)
}

/** A row with the paths of the registered formats that name its provider added. */
function withRegistered(info: ProviderInfo): ProviderInfo {
  const formats = registeredFor(info.id).filter((f) => info.paths[f] === undefined)
  if (formats.length === 0) return info
  const extra = provider({ id: info.id, name: info.name, baseUrl: info.baseUrl, keyEnv: [], formats })
  const unaryPaths = { ...info.unaryPaths, ...extra.unaryPaths }
  const headers = { ...info.headers, ...extra.headers }
  return {
    ...info,
    paths: { ...info.paths, ...extra.paths },
    ...(Object.keys(unaryPaths).length > 0 ? { unaryPaths } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  }
}

/**
 * A provider the registry does not list, at a base URL: OpenAI-compatible, and speaking first the registered formats
 * whose descriptor names it (whose auth it then takes).
 */
function unlisted(id: string, baseUrl: string): ProviderInfo {
  const own = registeredFor(id)
  if (own.length === 0) return compatible(id, id, baseUrl, [])
  return provider({ id, name: id, baseUrl, keyEnv: [], formats: [...own, ...COMPATIBLE_FORMATS] })
}

/** The registry row for `provider` (case-insensitive), with the registered formats that name it, or undefined. */
export function providerInfo(provider: string): ProviderInfo | undefined {
  const row = PROVIDERS[provider.toLowerCase()]
  return row && withRegistered(row)
}

/** Resolves a provider, wire format, key and base URL into an Endpoint, or throws a typed error. */
export function endpointFor(request: EndpointRequest): Endpoint {
  const known = providerInfo(request.provider)
  if (!known && request.baseUrl === undefined) {
    const ids = Object.keys(PROVIDERS).join(", ")
    const what =
      request.provider === UNKNOWN_PROVIDER
        ? "no provider: the model's id does not say who serves it"
        : `unknown provider "${request.provider}"`
    throw new EndpointError(
      "unknown-provider",
      `${what}: use one of ${ids}, or give a base URL for an OpenAI-compatible server.`,
    )
  }
  const info = known ?? unlisted(request.provider, request.baseUrl ?? "")
  // The default format is the model catalog's rule for the provider (one rule, in models/wire.ts).
  const format = request.format ?? wireFormatOf({ provider: info.id, family: "" })
  if (info.paths[format] === undefined) {
    const spoken = Object.keys(info.paths).join(", ")
    throw new EndpointError(
      "unsupported-format",
      `${info.name} does not speak the ${format} wire format (it speaks ${spoken}).`,
    )
  }
  const envBase = info.baseUrlEnv ? nonEmpty(request.env[info.baseUrlEnv]) : undefined
  const baseUrl = trimSlash(request.baseUrl ?? envBase ?? info.baseUrl)
  if (request.baseUrl !== undefined || envBase !== undefined)
    checkBaseUrl(baseUrl, request.baseUrl !== undefined ? "the base URL" : info.baseUrlEnv!)
  const key = keyOf(info, request)
  const headers: Record<string, string> = { "content-type": "application/json", ...info.headers }
  if (key.value) Object.assign(headers, authHeaders(keyStyle(info), key.value))
  Object.assign(headers, request.headers)
  return { provider: info.id, format, baseUrl, headers, keySource: key.source }
}

/** The URL of a request to `endpoint` for `model`, in `format` (default: the endpoint's), streamed unless `stream` is false. */
export function requestUrl(
  endpoint: Endpoint,
  model: string,
  options: { format?: WireFormat; stream?: boolean } = {},
): string {
  const format = options.format ?? endpoint.format
  const info = providerInfo(endpoint.provider) ?? unlisted(endpoint.provider, endpoint.baseUrl)
  const unary = options.stream === false ? info.unaryPaths?.[format] : undefined
  const path = unary ?? info.paths[format]
  if (path === undefined) {
    throw new EndpointError("unsupported-format", `${info.name} does not speak ${format}.`)
  }
  const name = model.replace(/^models\//, "")
  return `${endpoint.baseUrl}${path.replace("{model}", encodeURIComponent(name))}`
}

/** The WebSocket URL of the Responses API under an endpoint's base URL (`wss://…/v1/responses`). */
export function responsesSocketUrl(endpoint: Endpoint): string {
  return `${endpoint.baseUrl.replace(/^http/, "ws")}${descriptorOf("openai-responses").endpoint.path}`
}

/** The header style an endpoint's key goes in (a server that needs none still takes a Bearer token when given one). */
export function keyStyleOf(endpoint: Endpoint): Exclude<AuthStyle, "none"> {
  return keyStyle(providerInfo(endpoint.provider) ?? unlisted(endpoint.provider, endpoint.baseUrl))
}

/** The header style a provider's key goes in. */
function keyStyle(info: ProviderInfo): Exclude<AuthStyle, "none"> {
  return info.auth === "none" ? "bearer" : info.auth
}

/**
 * An endpoint made with no key (`apiKey: ""`, no extra headers) given `key` in `style` (`keyStyleOf`): what
 * `endpointFor` makes with `apiKey: key`, so a keyless endpoint can be kept and the key added per call.
 */
export function withKey(keyless: Endpoint, style: Exclude<AuthStyle, "none">, key: string): Endpoint {
  if (key === "") return keyless
  return { ...keyless, headers: { ...keyless.headers, ...authHeaders(style, key) }, keySource: "option" }
}

function keyOf(info: ProviderInfo, request: EndpointRequest): { value?: string; source: string } {
  if (request.apiKey !== undefined)
    return request.apiKey === "" ? { source: "none" } : { value: request.apiKey, source: "option" }
  for (const name of info.keyEnv) {
    const value = nonEmpty(request.env[name])
    if (value) return { value, source: name }
  }
  if (info.keyEnv.length > 0) throw new MissingKeyError(info)
  return { source: "none" }
}

function authHeaders(style: Exclude<AuthStyle, "none">, key: string): Record<string, string> {
  switch (style) {
    case "x-api-key":
      return { "x-api-key": key }
    case "x-goog-api-key":
      return { "x-goog-api-key": key }
    case "bearer":
      return { authorization: `Bearer ${key}` }
  }
}

/** Refuses a base URL that is not an absolute http(s) URL: no request to it could ever succeed. */
function checkBaseUrl(url: string, source: string): void {
  if (!isHttpUrl(url))
    throw new EndpointError(
      "invalid-base-url",
      `${source} ${JSON.stringify(url)} is not an http:// or https:// URL (for example http://localhost:8000/v1).`,
    )
}

const nonEmpty = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim())
const trimSlash = (url: string) => url.replace(/\/+$/, "")
