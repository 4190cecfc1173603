import type { Tool as SdkAnthropicTool } from "@anthropic-ai/sdk/resources/messages"
import type { FunctionDeclaration as SdkFunctionDeclaration, Tool as SdkGeminiTool } from "@google/genai"
import type { ChatCompletionFunctionTool as SdkChatTool } from "openai/resources/chat/completions"
import type { FunctionTool as SdkResponsesTool } from "openai/resources/responses/responses"
import { describe, expect, expectTypeOf, it } from "vitest"
import { WIRE_FORMAT_MODULES } from "../providers/formats.js"
import { toNativeTools } from "./native.js"
import type {
  AnthropicTool,
  ChatCompletionFunctionTool,
  GeminiTool,
  NativeToolDefinition,
  ResponsesFunctionTool,
} from "./native-types.js"
import type { EnabledTool } from "./spec.js"

/** The SDK's type with TypeScript enums read as their string values (what goes over the wire). */
type Wire<T> = T extends string
  ? `${T}`
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T

const tools: EnabledTool[] = [
  {
    id: "read_file",
    kind: "read",
    name: "read_file",
    description: "Reads a file.",
    snippet: "read_file",
    guidelines: [],
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    examples: {},
  },
]

describe("native tool definition types", () => {
  it("stay assignable to the official SDKs' types", () => {
    expectTypeOf<AnthropicTool>().toExtend<SdkAnthropicTool>()
    expectTypeOf<ChatCompletionFunctionTool>().toExtend<SdkChatTool>()
    expectTypeOf<ResponsesFunctionTool>().toExtend<SdkResponsesTool>()
    // Gemini's SDK declares schema types as enums; ours are the same strings.
    expectTypeOf<GeminiTool>().toExtend<Wire<Pick<SdkGeminiTool, "functionDeclarations">>>()
    expectTypeOf<NonNullable<GeminiTool["functionDeclarations"]>[number]>().toExtend<Wire<SdkFunctionDeclaration>>()
  })

  it("are typed per wire format, by toNativeTools and by each format module", () => {
    expectTypeOf(toNativeTools(tools, "anthropic")).toEqualTypeOf<AnthropicTool[]>()
    expectTypeOf(toNativeTools(tools, "deepseek")).toEqualTypeOf<ChatCompletionFunctionTool[]>()
    expectTypeOf(toNativeTools(tools, "gemini")).toEqualTypeOf<GeminiTool[]>()
    expectTypeOf(WIRE_FORMAT_MODULES["openai-responses"].nativeTools(tools)).toEqualTypeOf<ResponsesFunctionTool[]>()
    expectTypeOf<NativeToolDefinition<"openai-chat">>().toEqualTypeOf<ChatCompletionFunctionTool>()
    // The module table and toNativeTools write the same definitions.
    for (const format of Object.keys(WIRE_FORMAT_MODULES) as (keyof typeof WIRE_FORMAT_MODULES)[])
      expect(toNativeTools(tools, format)).toEqual(WIRE_FORMAT_MODULES[format].nativeTools(tools))
  })
})
