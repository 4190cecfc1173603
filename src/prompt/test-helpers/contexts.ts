import { createContext, type PromptContext, type PromptContextInput } from "../../context/prompt-context.js"

/**
 * Named contexts shared by the prompt tests, the snapshot files and the benchmark. Each is the
 * `basic` context with one thing changed, so a snapshot diff shows what that one thing does.
 */

/** The basic context: every feature on, one MCP server, one skill, two instruction files. */
export function basicContext(overrides: Partial<PromptContextInput> = {}): PromptContext {
  return createContext({
    cwd: "/home/dev/shop",
    platform: { os: "Linux", osVersion: "6.8", shell: "bash", home: "/home/dev" },
    date: "2026-11-29",
    model: { id: "claude-sonnet-4-5", provider: "anthropic" },
    features: { browser: true, webTools: true, subagents: true, taskProgress: true },
    git: { root: "/home/dev/shop", branch: "main", status: " M src/cart.ts" },
    instructions: [
      {
        path: "~/.config/promptline/AGENTS.md",
        convention: "agents-md",
        scope: "user",
        text: "Answer in short sentences.",
      },
      {
        path: "AGENTS.md",
        convention: "agents-md",
        scope: "project",
        text: "Run `npm test` before finishing.\n\nUse pnpm, not npm, to add packages.",
      },
      {
        path: ".cursor/rules/db.mdc",
        convention: "cursor",
        scope: "project",
        text: "Migrations go in db/migrations.",
        activation: { when: "requested", description: "Database schema and migrations" },
      },
    ],
    skills: [
      {
        name: "release-notes",
        description: "Write release notes from the git log.",
        path: ".agents/skills/release-notes/SKILL.md",
      },
    ],
    mcpServers: [
      {
        name: "tracker",
        instructions: "Issues are referenced as TRK-123.",
        tools: [
          {
            name: "get_issue",
            description: "Fetch an issue by key.",
            inputSchema: {
              type: "object",
              properties: { key: { type: "string", description: "Issue key" } },
              required: ["key"],
            },
          },
        ],
        resources: [{ uri: "tracker://board", name: "board", description: "The current sprint board" }],
      },
    ],
    ...overrides,
  })
}

/** The contexts every variant is snapshotted with, by name. */
export const SNAPSHOT_CONTEXTS: Record<string, (variant: string) => PromptContext> = {
  basic: (variant) => basicContext({ variant }),
  "no-browser": (variant) =>
    basicContext({ variant, features: { webTools: true, subagents: true, taskProgress: true } }),
  "no-mcp": (variant) => basicContext({ variant, mcpServers: [] }),
  "no-task-progress": (variant) =>
    basicContext({ variant, features: { browser: true, webTools: true, subagents: true } }),
  autonomous: (variant) => basicContext({ variant, autonomy: "auto", interactive: false }),
  plan: (variant) => basicContext({ variant, mode: "plan" }),
  "plan-autonomous": (variant) => basicContext({ variant, mode: "plan", autonomy: "auto", interactive: false }),
  subagent: (variant) => basicContext({ variant, audience: "subagent" }),
  "custom-prompt": (variant) =>
    basicContext({ variant, customPrompt: { mode: "replace", text: "You are Shopbot. Keep the cart code simple." } }),
}
