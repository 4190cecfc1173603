/**
 * How `promptline launch` points each agent at its gateway: one table, one row per agent CLI, saying which
 * client API it speaks and which environment variables and command-line arguments carry the gateway's base URL
 * and the launch's token (the only key the agent gets). In the values, `{gateway}` stands for the gateway's
 * base URL (`http://127.0.0.1:PORT`, no trailing slash) and `{token}` for the token.
 */
import type { BuiltInShape } from "../providers/formats.js"

/** How an agent is pointed at the gateway for one client API. */
export interface AgentSetup {
  /** Variables set in the agent's environment. */
  env: Readonly<Record<string, string>>
  /** Arguments put before the user's own. */
  args?: readonly string[]
  /** Settings files the agent is given through a variable naming their path. */
  files?: readonly SetupFile[]
}

/**
 * A settings file `launch` writes in its own folder and names to the agent in `env`: only when the user's
 * environment names none and none of `heldAt` exists (an administrator's file stays in force).
 */
export interface SetupFile {
  /** The variable that names the file's path. */
  env: string
  /** The file's name in launch's folder. */
  name: string
  /** Its content, as JSON. */
  json: unknown
  /** Where the agent finds such a file when the variable is unset. */
  heldAt: readonly string[]
}

/** One agent CLI `launch` knows. */
export interface LaunchAgent {
  /** The command on the PATH, also the name given to `launch`. */
  command: string
  /** Its name in messages. */
  name: string
  /** The npm package that installs it (named when the command is not found). */
  npm: string
  /** Its set-up per client API it can speak; the first is the default. */
  formats: Partial<Record<BuiltInShape, AgentSetup>>
  /** Variables removed from its environment: switches that would send its requests elsewhere. */
  unset?: readonly string[]
}

/** The variable that holds the launch's token: the gateway's `tokenEnv`, and Codex's `env_key`. */
export const LAUNCH_TOKEN_ENV = "PROMPTLINE_LAUNCH_TOKEN"

/** A `-c key=value` override of Codex's config.toml, the value a TOML string. */
const codexOverride = (key: string, value: string) => ["-c", `${key}=${JSON.stringify(value)}`]

/** opencode's config (merged over the user's) giving one of its providers the gateway and the token. */
const opencodeProvider = (provider: string, path: string): AgentSetup => ({
  env: {
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      provider: { [provider]: { options: { baseURL: `{gateway}${path}`, apiKey: "{token}" } } },
    }),
  },
})

/**
 * Any other CLI, by the client API it speaks: the variables its official SDK reads for the base URL and the key
 * (`ANTHROPIC_*`, `OPENAI_*`; for Gemini, those of @google/genai and Gemini CLI).
 */
export const SDK_SETUPS: Readonly<Record<BuiltInShape, AgentSetup>> = {
  anthropic: { env: { ANTHROPIC_BASE_URL: "{gateway}", ANTHROPIC_API_KEY: "{token}" } },
  "openai-chat": { env: { OPENAI_BASE_URL: "{gateway}/v1", OPENAI_API_KEY: "{token}" } },
  "openai-responses": { env: { OPENAI_BASE_URL: "{gateway}/v1", OPENAI_API_KEY: "{token}" } },
  gemini: { env: { GOOGLE_GEMINI_BASE_URL: "{gateway}", GEMINI_API_KEY: "{token}" } },
}

/** The client APIs `launch --format` names, in help order. */
export const CLIENT_FORMATS = Object.keys(SDK_SETUPS) as BuiltInShape[]

/** The agents `launch` knows by name. */
export const LAUNCH_AGENTS: readonly LaunchAgent[] = [
  {
    command: "claude",
    name: "Claude Code",
    npm: "@anthropic-ai/claude-code",
    formats: {
      anthropic: {
        // The token as a Bearer token: Claude Code asks before it uses an ANTHROPIC_API_KEY it has not seen.
        env: {
          ANTHROPIC_BASE_URL: "{gateway}",
          ANTHROPIC_AUTH_TOKEN: "{token}",
          // No telemetry, error reports or update checks: the agent's only traffic is its model requests.
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        },
      },
    },
    unset: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"],
  },
  {
    command: "codex",
    name: "Codex CLI",
    npm: "@openai/codex",
    formats: {
      // A provider of its own given on the command line, so the user's ~/.codex/config.toml is left as it is.
      "openai-responses": {
        args: [
          ...codexOverride("model_provider", "promptline"),
          ...codexOverride("model_providers.promptline.name", "promptline"),
          ...codexOverride("model_providers.promptline.base_url", "{gateway}/v1"),
          ...codexOverride("model_providers.promptline.env_key", LAUNCH_TOKEN_ENV),
          ...codexOverride("model_providers.promptline.wire_api", "responses"),
        ],
        env: { [LAUNCH_TOKEN_ENV]: "{token}" },
      },
    },
  },
  {
    command: "gemini",
    name: "Gemini CLI",
    npm: "@google/gemini-cli",
    formats: {
      gemini: {
        ...SDK_SETUPS.gemini,
        // Gemini CLI 0.61 takes GOOGLE_GEMINI_BASE_URL for an auth type of its own ("gateway") that its
        // non-interactive mode then refuses ("Invalid auth method selected."); with no type chosen in the user's
        // settings, these system defaults choose the Gemini API key, the type older versions took from the
        // variables. Its defaults are below every settings file of the user's, so a choice of theirs stands.
        files: [
          {
            env: "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
            name: "gemini-cli-system-defaults.json",
            json: { security: { auth: { selectedType: "gemini-api-key" } } },
            heldAt: [
              "/etc/gemini-cli/system-defaults.json",
              "/Library/Application Support/GeminiCli/system-defaults.json",
              "C:\\ProgramData\\gemini-cli\\system-defaults.json",
            ],
          },
        ],
      },
    },
    unset: ["GOOGLE_GENAI_USE_GCA", "GOOGLE_GENAI_USE_VERTEXAI"],
  },
  {
    command: "qwen",
    name: "Qwen Code",
    npm: "@qwen-code/qwen-code",
    formats: {
      "openai-chat": { ...SDK_SETUPS["openai-chat"], args: ["--auth-type", "openai"] },
      anthropic: { ...SDK_SETUPS.anthropic, args: ["--auth-type", "anthropic"] },
    },
    unset: ["QWEN_OAUTH"],
  },
  {
    command: "opencode",
    name: "opencode",
    npm: "opencode-ai",
    formats: {
      anthropic: opencodeProvider("anthropic", "/v1"),
      "openai-responses": opencodeProvider("openai", "/v1"),
      gemini: opencodeProvider("google", "/v1beta"),
    },
  },
]

/** The agent `launch` knows by this command name, or undefined. */
export function launchAgent(command: string): LaunchAgent | undefined {
  return LAUNCH_AGENTS.find((agent) => agent.command === command)
}

/** The client APIs an agent can be pointed at, its default first. */
export function agentFormats(agent: LaunchAgent): BuiltInShape[] {
  return Object.keys(agent.formats) as BuiltInShape[]
}

/** A set-up's values with the gateway's base URL and the token written in. */
export function fillSetup(
  setup: AgentSetup,
  gateway: string,
  token: string,
): { env: Record<string, string>; args: string[] } {
  const fill = (value: string) => value.replaceAll("{gateway}", gateway).replaceAll("{token}", token)
  return {
    env: Object.fromEntries(Object.entries(setup.env).map(([name, value]) => [name, fill(value)])),
    args: (setup.args ?? []).map(fill),
  }
}

/** The agent's environment: the user's less the `hidden` variables, plus the set-up's. */
export function agentEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  hidden: ReadonlySet<string>,
  setup: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) if (value !== undefined && !hidden.has(name)) out[name] = value
  return { ...out, ...setup }
}
