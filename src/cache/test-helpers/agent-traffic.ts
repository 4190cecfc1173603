/**
 * Request bodies shaped like two coding agents' real traffic, for the cache explainer's tests: a Claude Code
 * session (Anthropic Messages: a billing line and two marked system blocks, a session id in `metadata.user_id`,
 * trailing `role: "system"` reminders, the last block of the last message marked, a string content turned into a
 * one-block list to carry that marker) and a Qwen Code session (OpenAI Chat) with its memory-extraction side call
 * (its own system prompt and tools, the same first user message). promptline's prompt and tools give the size.
 */
import { defaultPrompt, encoded } from "./script.js"

type Json = Record<string, unknown>

const MARK = { type: "ephemeral" }

/** The file a tool call of turn `j` reads back: about 400 tokens of source text. */
function fileText(j: number): string {
  return Array.from(
    { length: 30 },
    (_, i) => `export const value${j}_${i} = compute(${i}, "step ${j}") // line ${i}`,
  ).join("\n")
}

/** The Anthropic tools and system prompt text promptline would send (markers left out). */
function anthropicBase(): { tools: Json[]; text: string } {
  const prompt = defaultPrompt()
  const body = encoded("anthropic", prompt, [], 0, { cache: false }).body as Json
  return { tools: body.tools as Json[], text: prompt.text }
}

/** One turn of a Claude Code session: the user's message, the reminder it may bring, the assistant's answer. */
interface ClaudeTurn {
  user: Json
  reminder?: Json
  assistant: Json
}

function claudeTurn(j: number, reminderEvery: number): ClaudeTurn {
  const calls = j % 2 === 1
  let user: Json
  if (j === 1)
    user = {
      role: "user",
      content: [
        {
          type: "text",
          text: "<system-reminder>\nAs you answer, use this context: the project is a TypeScript library.\n</system-reminder>",
        },
        { type: "text", text: "Find why the budget test fails and fix it." },
      ],
    }
  else if (j % 2 === 0)
    user = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_${j - 1}`, content: fileText(j - 1) }],
    }
  else user = { role: "user", content: `Good. Now step ${j}: look at the next file.` }
  const text = { type: "text", text: calls ? `Reading file ${j}.` : `Step ${j} is done.` }
  const assistant = {
    role: "assistant",
    content: calls
      ? [text, { type: "tool_use", id: `toolu_${j}`, name: "read_file", input: { path: `src/file-${j}.ts` } }]
      : [text],
  }
  const reminder =
    j % reminderEvery === 0
      ? { role: "system", content: `<system-reminder>Turn ${j}: the todo list has ${j} items.</system-reminder>` }
      : undefined
  return { user, assistant, ...(reminder ? { reminder } : {}) }
}

/** The message with the marker on its last block; a string content becomes the one-block list that can carry it. */
function marked(message: Json): Json {
  const content = message.content
  if (typeof content === "string")
    return { ...message, content: [{ type: "text", text: content, cache_control: MARK }] }
  const blocks = content as Json[]
  return { ...message, content: [...blocks.slice(0, -1), { ...blocks.at(-1), cache_control: MARK }] }
}

/** Options of a Claude Code session. */
export interface ClaudeCodeOptions {
  /** The session id in `metadata.user_id`. */
  sessionId?: string
  /** A trailing system message comes with every `reminderEvery`-th turn (2: every other turn). */
  reminderEvery?: number
  model?: string
}

/** The bodies of a Claude Code session of `requests` requests, request k holding turns 1..k. */
export function claudeCodeSession(requests: number, options: ClaudeCodeOptions = {}): Json[] {
  const { tools, text } = anthropicBase()
  const session = options.sessionId ?? "00000000-0000-4000-8000-000000000001"
  const turns = Array.from({ length: requests }, (_, i) => claudeTurn(i + 1, options.reminderEvery ?? 2))
  return turns.map((_, k) => {
    const messages: Json[] = []
    turns.slice(0, k + 1).forEach((turn, j) => {
      messages.push(turn.user)
      if (turn.reminder) messages.push(turn.reminder)
      if (j < k) messages.push(turn.assistant)
    })
    messages[messages.length - 1] = marked(messages.at(-1)!)
    return {
      model: options.model ?? "claude-opus-4-8",
      max_tokens: 32_000,
      stream: true,
      system: [
        { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.197.c3f; cc_entrypoint=cli;" },
        { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: MARK },
        { type: "text", text, cache_control: MARK },
      ],
      tools,
      metadata: { user_id: JSON.stringify({ device_id: "0".repeat(16), account_uuid: "", session_id: session }) },
      messages,
    }
  })
}

/** What Qwen Code's first user message says: the environment, the same for every request of the session. */
const QWEN_CONTEXT =
  "This is the Qwen Code. We are setting up the context for our chat.\nToday's date is Tuesday, December 1, 2026.\n" +
  "My operating system is: linux\nI'm currently working in the directory: /work/project\n" +
  "Here is the folder structure of the current working directories:\n\n/work/project/\n├───package.json\n└───src/"

/** The memory-extraction agent's own system prompt and tool. */
const MEMORY_PROMPT = Array.from(
  { length: 12 },
  (_, i) =>
    `Rule ${i + 1}: you extract durable facts about the user and the project from the conversation above, ` +
    "one fact a call of save_memory, nothing that only matters for this task, nothing already saved.",
).join("\n\n")

const SAVE_MEMORY = {
  type: "function",
  function: {
    name: "save_memory",
    description: "Saves one durable fact to the user's memory file.",
    parameters: { type: "object", properties: { fact: { type: "string" } }, required: ["fact"] },
  },
}

/** The main conversation's messages after `turns` turns (tool calls and results included). */
function qwenHistory(turns: number): Json[] {
  const messages: Json[] = [
    { role: "user", content: QWEN_CONTEXT },
    { role: "assistant", content: "Got it. Thanks for the context!" },
  ]
  for (let j = 1; j <= turns; j++) {
    messages.push({ role: "user", content: `Task ${j}: explain the file src/file-${j}.ts.` })
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: `call_${j}`,
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: `src/file-${j}.ts` }) },
        },
      ],
    })
    messages.push({ role: "tool", tool_call_id: `call_${j}`, content: fileText(j) })
    if (j < turns) messages.push({ role: "assistant", content: `File ${j} computes ${j} values.` })
  }
  return messages
}

/** One request of a Qwen Code session: `main` after `turns` turns, or the memory extraction that follows them. */
export function qwenCodeRequest(kind: "main" | "memory", turns: number, model = "gpt-4o"): Json {
  const history = qwenHistory(turns)
  if (kind === "memory")
    return {
      model,
      stream: false,
      messages: [
        { role: "system", content: MEMORY_PROMPT },
        ...history,
        { role: "assistant", content: `File ${turns} computes ${turns} values.` },
        { role: "user", content: "Extract the memories worth keeping from the conversation above." },
      ],
      tools: [SAVE_MEMORY],
    }
  const prompt = defaultPrompt()
  const body = encoded("openai-chat", prompt, [], 0).body as Json
  return {
    model,
    stream: false,
    messages: [{ role: "system", content: prompt.text }, ...history],
    tools: body.tools,
  }
}
