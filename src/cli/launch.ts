import { Command, Option } from "commander"
import { CLIENT_FORMATS, LAUNCH_AGENTS } from "./launch-agents.js"
import type { CommandFactory } from "./main.js"

/** Flags of `promptline launch` (those before the agent's name). */
export interface LaunchFlags {
  format?: string
  config?: string
  trace?: string
}

/** The agents `launch` knows, for the help text. */
const agentList = () => LAUNCH_AGENTS.map((a) => `${a.command} (${a.name})`).join(", ")

/**
 * `promptline launch <agent> [args...]`: a gateway on a free loopback port, guarded by a fresh token, and the agent
 * in the foreground pointed at it; the gateway stops when the agent exits, with the agent's exit status.
 */
export const launchCommand: CommandFactory = (io, setExit) =>
  new Command("launch")
    .description("run an agent CLI through a gateway of its own: traces and usage, with your config's routes")
    .argument("<agent>", `the agent's command: ${agentList()}, or any other with --format`)
    .argument("[args...]", "the agent's own arguments, passed as they are")
    .addOption(
      new Option(
        "--format <api>",
        "the client API the agent speaks: for any other CLI (it gets that SDK's base URL and key variables), or to choose among a known agent's",
      ).choices(CLIENT_FORMATS),
    )
    .option("--config <file>", "the config file to read (default: promptline.config.json of the user and the project)")
    .option("--trace <dir>", "the trace folder (default: the config's traces.dir, else promptline's cache folder)")
    .passThroughOptions()
    .addHelpText(
      "after",
      [
        "",
        "Options go before the agent's name; everything after it is the agent's.",
        "  promptline launch claude -p 'say hi'",
        "  promptline launch codex exec 'say hi'",
        "  promptline launch --format openai-chat aider --model gpt-4.1",
      ].join("\n"),
    )
    .action(async (agent: string, args: string[], flags: LaunchFlags) => {
      const { launchAction } = await import("./launch-action.js")
      setExit(await launchAction(agent, args, flags, io))
    })
