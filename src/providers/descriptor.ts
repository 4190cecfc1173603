/**
 * What one wire format is, as data: the descriptor each folder under providers/ exports from its
 * `descriptor.ts`. Every per-format table (token overheads, native tool shape, cache scheme, the paths of the
 * client API the gateway and the replay server serve, the provider's endpoint, auth and counting endpoint, the
 * model-list shape, how a recording or a history is recognized) is derived from the set of descriptors.
 *
 * Descriptors are pure data that every layer may read (history counts with the overheads, tools writes the native
 * shape, models picks a provider's default format): this file, `descriptors.ts` and each `<format>/descriptor.ts`
 * form a layer of their own just below the root and import nothing but root files (src/architecture.test.ts).
 */

/** Fixed token costs a wire format adds around the content. */
export interface Overhead {
  /** Per message (role markers, separators). */
  message: number
  /** Once per request (reply priming, request framing). */
  request: number
  /** Per tool definition, on top of its JSON. */
  tool: number
  /** Once when any tool is defined (Anthropic's tool-use system prompt: 346 tokens, documented). */
  toolsPreamble: number
  /** Per tool_use or tool_result block, on top of its content. */
  toolBlock: number
  /** Per image. */
  image: number
}

/** The three parts of a request, in the order a cache scheme lists them. */
export type RequestPart = "tools" | "system" | "messages"

/** The caching rules of one wire format's provider. */
export interface CacheScheme {
  /** The order of the parts in the cached prefix. */
  order: readonly RequestPart[]
  /** `breakpoints`: only prefixes ending at a `cache_control` marker are cached (Anthropic); `automatic`: any prefix. */
  mode: "breakpoints" | "automatic"
  /** Cached lengths are whole multiples of this many tokens past `minimum` (OpenAI 128, DeepSeek 64). */
  unit: number
  /** Blocks before a breakpoint the provider looks back for an earlier entry (Anthropic: 20). */
  lookback: number
  /** Lifetime of an entry when neither the body nor the catalog says (milliseconds). */
  defaultLifetimeMs: number
  /** The minimum cacheable prefix when the catalog has no figure. */
  defaultMinimum: number
  /** Words for docs and reports. */
  describe: string
}

/** The native tool definition shapes tools/native.ts writes (DeepSeek writes OpenAI Chat's). */
export type NativeToolShape = "anthropic" | "openai-chat" | "openai-responses" | "gemini"

/** How a provider takes its key: Anthropic's header, a Bearer token, Google's header, or not at all. */
export type AuthStyle = "x-api-key" | "bearer" | "x-goog-api-key" | "none"

/** What a client API path says besides its format (Gemini puts the model and the streaming mode there). */
export interface PathMatch {
  model?: string
  stream?: boolean
  /** Gemini: `alt=sse` was asked for (otherwise a streamed answer is one JSON array). */
  sse?: boolean
  /** Why the path cannot be served although its format is known (a model name that is not valid percent-encoding). */
  invalid?: string
}

/** The paths of one kind of request: exact paths, or a function reading a path (undefined: not this kind). */
export type PathRule = readonly string[] | ((path: string, query: URLSearchParams) => PathMatch | undefined)

/** A provider's token-counting endpoint and the client API's counting answer. */
export interface CountingEndpoint {
  /** The counting URL and body for an encoded request, from the URL a non-streamed generation request goes to. */
  request(generationUrl: string, body: Record<string, unknown>, model: string): { url: string; body: unknown }
  /** The count in the provider's answer. */
  tokens(answer: Record<string, unknown> | undefined): unknown
  /** The counting answer for `tokens`, in this API's shape (what the gateway and the replay server send). */
  answer(tokens: number): unknown
}

/** The API a client calls: what the gateway and the replay server serve for this format. */
export interface ClientApi {
  /** Generation requests. */
  generation: PathRule
  /** Token-counting requests, when the API has them. */
  counting?: PathRule
  /**
   * How a request to any other path (a model list, an unknown path) is known to come from this API's clients: a
   * path prefix, a header its SDK sends, or `fallback` for the API assumed when nothing else says.
   */
  marks?: { pathPrefix?: RegExp; header?: string; fallback?: true }
  /** Model-list requests: the paths, and the list body in this API's shape. */
  modelList?: { paths?: (path: string) => boolean; shape(ids: readonly string[]): unknown }
}

/** Where a provider serves a format and how it is authenticated. */
export interface ProviderEndpoint {
  /** The path under a provider's base URL (streamed answers); `{model}` stands for the model id. */
  path: string
  /** Where the path differs for an answer that is not streamed (Gemini). */
  unaryPath?: string
  /** How this API takes the key (a provider row takes its first format's). */
  auth: Exclude<AuthStyle, "none">
  /** Headers every request in this format carries besides the key. */
  headers?: Readonly<Record<string, string>>
  /** OpenAI-compatible servers (Ollama, vLLM, an unknown provider with a base URL) speak it at `path`. */
  compatible?: true
}

/** One wire format, whole: the data every per-format table is derived from. */
export interface WireFormatDescriptor<F extends string = string, S extends string = string> {
  /** The format's name (`--format`, the config's `format`, the key of every derived table). */
  readonly format: F
  /** The format whose request and stream shapes this one uses (its own name, or the one it extends). */
  readonly speaks: S
  /**
   * Whose default format this is: the providers that speak it natively, and the model families on clouds that
   * host several (Bedrock, Vertex).
   */
  readonly defaultFor: { readonly providers: readonly string[]; readonly families?: readonly string[] }
  /** The shape of its native tool definitions. */
  readonly nativeTools: NativeToolShape
  /** Fixed token costs around the content. */
  readonly overhead: Overhead
  /** How its provider caches a prompt. */
  readonly cache: CacheScheme
  /**
   * The provider runs tool search itself over tools sent deferred (`defer_loading`), and loads the tools a tool
   * result references; without it, the gateway resolves a client's deferred tools (gateway/deferred-tools/).
   */
  readonly serverToolSearch?: true
  /** Where a provider serves it, and how it is authenticated. */
  readonly endpoint: ProviderEndpoint
  /** The provider's token-counting endpoint, when it has one. */
  readonly counting?: CountingEndpoint
  /** The client API the gateway and the replay server serve (absent: clients reach it through the format it speaks). */
  readonly api?: ClientApi
  /** The mark of a recorded payload or body in this format (the evidence, in the recording's words), if it has one. */
  readonly detect?: (payload: Record<string, unknown>) => string | undefined
  /** The field of a request body that holds the conversation (`messages`, `input`, `contents`, ...). */
  readonly history: string
}

/** Exact paths as a path rule's reader: the path matches when it is one of them. */
export function matchPath(rule: PathRule, path: string, query: URLSearchParams): PathMatch | undefined {
  return typeof rule === "function" ? rule(path, query) : rule.includes(path) ? {} : undefined
}

/** A copy of a body without `fields` (what a counting endpoint does not take). */
export function without(body: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const rest = { ...body }
  for (const field of fields) delete rest[field]
  return rest
}
