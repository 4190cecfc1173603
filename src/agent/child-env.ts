import { PROVIDERS } from "../providers/endpoints.js"
import { type SecretEnvPolicy, withoutSecrets } from "../secret-env.js"

/** Every environment variable the provider registry reads a key from, sorted. */
export const PROVIDER_KEY_ENV: readonly string[] = [
  ...new Set(Object.values(PROVIDERS).flatMap((provider) => provider.keyEnv)),
].sort()

/** What a host says about secrets: more names to remove, and names to pass all the same. */
export interface SecretEnvOptions {
  /** Variables children never inherit, besides the provider keys and the default name endings. */
  secretEnv?: readonly string[]
  /** Variables children inherit although they look secret (e.g. `GH_TOKEN` for `gh`). */
  keepEnv?: readonly string[]
}

/** The agent's policy for its child processes: provider keys, the host's names, and the host's exceptions. */
export function agentSecretPolicy(options: SecretEnvOptions = {}): SecretEnvPolicy {
  const policy: SecretEnvPolicy = { names: [...PROVIDER_KEY_ENV, ...(options.secretEnv ?? [])] }
  if (options.keepEnv) policy.keep = options.keepEnv
  return policy
}

/** The environment a command inherits: `env` without the agent's secrets. */
export function childEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: SecretEnvOptions = {},
): Record<string, string> {
  return withoutSecrets(env, agentSecretPolicy(options))
}
