/**
 * Which environment variables child processes (commands, MCP servers) do not inherit from the agent.
 * A name is secret when it is listed (exactly) in the policy's `names`, or when it ends in one of
 * SECRET_ENV_SUFFIXES; `keep` lists names that pass all the same. Names compare without regard to case,
 * as Windows treats them.
 */

/** Name endings that make a variable secret by default (`ANTHROPIC_API_KEY`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, ...). */
export const SECRET_ENV_SUFFIXES: readonly string[] = [
  "_API_KEY",
  "_APIKEY",
  "_TOKEN",
  "_SECRET",
  "_SECRET_KEY",
  "_ACCESS_KEY",
  "_PASSWORD",
]

/** Names removed besides the suffix rule, and names kept despite it. */
export interface SecretEnvPolicy {
  /** More secret names (exact, any case), e.g. each provider's key variables and the host's own list. */
  names?: readonly string[]
  /** Names children do inherit although a rule above removes them (e.g. `GH_TOKEN` for a `gh` command). */
  keep?: readonly string[]
}

/** Whether `name` is a secret under the policy. */
export function isSecretEnvName(name: string, policy: SecretEnvPolicy = {}): boolean {
  const upper = name.toUpperCase()
  if (policy.keep?.some((k) => k.toUpperCase() === upper)) return false
  if (policy.names?.some((n) => n.toUpperCase() === upper)) return true
  return SECRET_ENV_SUFFIXES.some((suffix) => upper.endsWith(suffix))
}

/** A copy of `env` without its secret variables (and without unset ones). */
export function withoutSecrets(
  env: Readonly<Record<string, string | undefined>>,
  policy: SecretEnvPolicy = {},
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretEnvName(name, policy)) out[name] = value
  }
  return out
}
