/**
 * Who serves the model when a project's config chose it. A project may pick a hosted provider (its official
 * endpoint, with the user's own key for that provider), but not a server on this machine: Ollama, LM Studio,
 * vLLM or llama.cpp listen on a local port that any user of the machine may hold, so a config planted in a
 * shared folder (`/tmp`) could receive every prompt and answer as the model. The user picks those with
 * `--provider`, `--model`, `--base-url` or their own config.
 */
import { providerInfo } from "../providers/endpoints.js"

/** Why prompts may not go to `provider`, when a project file (`chosenBy`) and no flag or user file chose it. */
export function projectServerRefusal(chosenBy: string | undefined, provider: string): string | undefined {
  if (chosenBy === undefined || providerInfo(provider)?.local !== true) return undefined
  return `the project config ${chosenBy} chooses ${provider}, a server on this machine, to serve the model; a project cannot choose where prompts go: pass --provider ${provider} (or --model, --base-url), or set "provider" in your user config`
}
