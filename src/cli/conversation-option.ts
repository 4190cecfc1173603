// The `--from` option of the commands that read a conversation (`--history FILE`), and the reading itself.
import { isAbsolute, resolve } from "node:path"
import { Option } from "commander"
import type { Conversation } from "../providers/conversation.js"
import { wireFormats } from "../providers/descriptors.js"
import type { ConversationFormat } from "../providers/request-detect.js"
import type { CliIO } from "./io.js"

/** What `--history` takes, for help texts. */
export const HISTORY_HELP =
  "the conversation: promptline's message array, or a provider request or its history (Anthropic or OpenAI messages, a Responses input, Gemini contents)"

/** `--from FORMAT`: read the history as this format instead of detecting it. */
export function fromOption(): Option {
  return new Option("--from <format>", "the history's format (default: detected)").choices([
    "internal",
    ...wireFormats(),
  ])
}

/** Reads the `--history` file relative to the working folder, in the format named or detected. */
export async function readHistoryFlag(io: CliIO, file: string, from?: ConversationFormat): Promise<Conversation> {
  const { readConversation } = await import("../providers/conversation.js")
  return readConversation(isAbsolute(file) ? file : resolve(io.cwd, file), from)
}
