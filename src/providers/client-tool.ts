/** A tool a client declares in its request and runs itself, as promptline's tool type (every request decoder). */
import type { EnabledTool } from "../tools/spec.js"

/** An enabled tool of kind `client`: id = name, the parameters as the format's decoder read them, nothing added. */
export function clientTool(name: string, description: string, parameters: EnabledTool["parameters"]): EnabledTool {
  return { id: name, kind: "client", name, description, snippet: "", guidelines: [], parameters, examples: {} }
}
