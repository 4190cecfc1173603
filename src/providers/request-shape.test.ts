import type {
  MessageCreateParamsBase as BetaMessageCreateParamsBase,
  BetaMessageParam,
  BetaToolUnion,
} from "@anthropic-ai/sdk/resources/beta/messages/messages"
import type { MessageCreateParamsBase, MessageParam } from "@anthropic-ai/sdk/resources/messages"
import type { GenerateContentConfig, Part } from "@google/genai"
import type { ChatCompletionCreateParamsBase, ChatCompletionMessageParam } from "openai/resources/chat/completions"
import type {
  EasyInputMessage,
  ResponseCreateParamsBase,
  ResponseInputItem,
} from "openai/resources/responses/responses"
import { describe, expect, expectTypeOf, it } from "vitest"
import {
  ANTHROPIC_MESSAGE_ROLES,
  type ANTHROPIC_NAMELESS_TOOL_TYPES,
  ANTHROPIC_REQUEST_FIELDS,
  checkAnthropicRequest,
} from "./anthropic/request-shape.js"
import {
  checkGeminiRequest,
  type GEMINI_CONFIG_PLACES,
  type GEMINI_PART_FIELDS,
  GEMINI_REQUEST_FIELDS,
  geminiUnknownFields,
} from "./gemini/request-shape.js"
import { checkOpenAIChatRequest, OPENAI_CHAT_REQUEST_FIELDS, OPENAI_CHAT_ROLES } from "./openai-chat/request-shape.js"
import {
  checkOpenAIResponsesRequest,
  OPENAI_RESPONSES_ITEM_SIDES,
  OPENAI_RESPONSES_REQUEST_FIELDS,
  OPENAI_RESPONSES_ROLES,
} from "./openai-responses/request-shape.js"
import { unknownFields } from "./request-shape.js"

/** Keys of `T` that `Listed` does not have: `never` while the tables keep up with the installed SDKs. */
type Unlisted<T, Listed> = Exclude<T, keyof Listed>

/** Keys `Listed` has that are not among `T`: `never` while the tables list nothing the SDKs dropped or never had. */
type Unknown<Listed, T> = Exclude<keyof Listed, T>

describe("the request tables keep up with the installed official SDKs", () => {
  // These fail `tsc` (and so the check) when an SDK gains a field, role or item type the tables do not list, or
  // when a table lists one the SDK does not have. The production tables do not import the SDKs: the build runs
  // without them (they are test clients, test/clients/), so the comparison lives here.
  type AnthropicKeys = keyof MessageCreateParamsBase | keyof BetaMessageCreateParamsBase
  type AnthropicRoles = MessageParam["role"] | BetaMessageParam["role"]
  type AnthropicNamelessTools = Exclude<BetaToolUnion, { name: string }>["type"]
  type ResponsesItemTypes = NonNullable<ResponseInputItem["type"]>

  it("lists every top-level field, message role, item type and part field", () => {
    expectTypeOf<Unlisted<AnthropicKeys, typeof ANTHROPIC_REQUEST_FIELDS>>().toEqualTypeOf<never>()
    expectTypeOf<Unlisted<AnthropicRoles, typeof ANTHROPIC_MESSAGE_ROLES>>().toEqualTypeOf<never>()
    expectTypeOf<Unlisted<AnthropicNamelessTools, typeof ANTHROPIC_NAMELESS_TOOL_TYPES>>().toEqualTypeOf<never>()
    expectTypeOf<
      Unlisted<keyof ChatCompletionCreateParamsBase, typeof OPENAI_CHAT_REQUEST_FIELDS>
    >().toEqualTypeOf<never>()
    expectTypeOf<Unlisted<ChatCompletionMessageParam["role"], typeof OPENAI_CHAT_ROLES>>().toEqualTypeOf<never>()
    expectTypeOf<
      Unlisted<keyof ResponseCreateParamsBase, typeof OPENAI_RESPONSES_REQUEST_FIELDS>
    >().toEqualTypeOf<never>()
    expectTypeOf<Unlisted<EasyInputMessage["role"], typeof OPENAI_RESPONSES_ROLES>>().toEqualTypeOf<never>()
    expectTypeOf<Unlisted<ResponsesItemTypes, typeof OPENAI_RESPONSES_ITEM_SIDES>>().toEqualTypeOf<never>()
    expectTypeOf<Unlisted<keyof GenerateContentConfig, typeof GEMINI_CONFIG_PLACES>>().toEqualTypeOf<never>()
    expectTypeOf<Unlisted<keyof Part, typeof GEMINI_PART_FIELDS>>().toEqualTypeOf<never>()
  })

  it("lists nothing the SDKs do not have", () => {
    expectTypeOf<Unknown<typeof ANTHROPIC_REQUEST_FIELDS, AnthropicKeys>>().toEqualTypeOf<never>()
    expectTypeOf<Unknown<typeof ANTHROPIC_MESSAGE_ROLES, AnthropicRoles>>().toEqualTypeOf<never>()
    expectTypeOf<Unknown<typeof ANTHROPIC_NAMELESS_TOOL_TYPES, AnthropicNamelessTools>>().toEqualTypeOf<never>()
    expectTypeOf<
      Unknown<typeof OPENAI_CHAT_REQUEST_FIELDS, keyof ChatCompletionCreateParamsBase>
    >().toEqualTypeOf<never>()
    expectTypeOf<Unknown<typeof OPENAI_CHAT_ROLES, ChatCompletionMessageParam["role"]>>().toEqualTypeOf<never>()
    expectTypeOf<
      Unknown<typeof OPENAI_RESPONSES_REQUEST_FIELDS, keyof ResponseCreateParamsBase>
    >().toEqualTypeOf<never>()
    expectTypeOf<Unknown<typeof OPENAI_RESPONSES_ROLES, EasyInputMessage["role"]>>().toEqualTypeOf<never>()
    expectTypeOf<Unknown<typeof OPENAI_RESPONSES_ITEM_SIDES, ResponsesItemTypes>>().toEqualTypeOf<never>()
    expectTypeOf<Unknown<typeof GEMINI_CONFIG_PLACES, keyof GenerateContentConfig>>().toEqualTypeOf<never>()
    expectTypeOf<Unknown<typeof GEMINI_PART_FIELDS, keyof Part>>().toEqualTypeOf<never>()
  })

  it("accepts a body that uses every listed field and every role, and reports none of them as unknown", () => {
    const filled = (fields: Record<string, string>, base: Record<string, unknown>) => ({
      ...Object.fromEntries(Object.keys(fields).map((k) => [k, {}])),
      ...base,
    })
    const text = (role: string) => ({ role, content: [{ type: "text", text: `a ${role} message` }] })
    const anthropic = filled(ANTHROPIC_REQUEST_FIELDS, {
      model: "claude-opus-4-8",
      max_tokens: 10,
      messages: Object.keys(ANTHROPIC_MESSAGE_ROLES).map(text),
      system: "s",
      tools: [],
    })
    expect(checkAnthropicRequest(anthropic)).toEqual([])
    expect(unknownFields(anthropic, ANTHROPIC_REQUEST_FIELDS)).toEqual([])

    const chat = filled(OPENAI_CHAT_REQUEST_FIELDS, {
      model: "gpt-5",
      messages: Object.keys(OPENAI_CHAT_ROLES).map(text),
      tools: [],
    })
    expect(checkOpenAIChatRequest(chat)).toEqual([])
    expect(unknownFields(chat, OPENAI_CHAT_REQUEST_FIELDS)).toEqual([])

    const items = Object.keys(OPENAI_RESPONSES_ITEM_SIDES).map((type) =>
      type === "message" ? { type, role: "user", content: "hi" } : { type },
    )
    const responses = filled(OPENAI_RESPONSES_REQUEST_FIELDS, {
      model: "gpt-5",
      input: [...items, ...Object.keys(OPENAI_RESPONSES_ROLES).map((role) => ({ role, content: "x" }))],
      tools: [],
    })
    expect(checkOpenAIResponsesRequest(responses)).toEqual([])
    expect(unknownFields(responses, OPENAI_RESPONSES_REQUEST_FIELDS)).toEqual([])

    const gemini = filled(GEMINI_REQUEST_FIELDS, { contents: [{ role: "user", parts: [{ text: "hi" }] }], tools: [] })
    expect(checkGeminiRequest(gemini)).toEqual([])
    expect(geminiUnknownFields(gemini)).toEqual([])
    expect(geminiUnknownFields({ contents: [], system_instruction: {}, generation_config: {}, topK: 1 })).toEqual([
      "topK",
    ])
  })
})
