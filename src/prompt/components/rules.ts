import { defineComponent } from "../component.js"

const RULES = `# Rules

- Paths are relative to the working directory given in the environment details. Stay inside the project: do not change files elsewhere unless the task asks for it.
\${% if tools.by_kind.execute %}- Each command runs in a fresh shell in the working directory. To work elsewhere, chain it: \`cd dir && command\`. Before a command that deletes data, rewrites history or installs system-wide, be sure the task requires it.
\${% endif %}- Follow the conventions you find in the project: its formatting, libraries, test layout and scripts. Check that a library is already used before you rely on it.
- Never print, store or commit secrets such as keys and tokens.
\${% if autonomy == "auto" %}- You run without supervision: do not ask for confirmation or preferences. When something is ambiguous, choose the most reasonable reading, carry on, and state the assumption in your final result.
\${% elsif tools.by_kind.ask %}- Ask with \${{ tools.by_kind.ask }} only when you are blocked on information you cannot find with your tools; ask one precise question, with options when you can.
\${% endif %}\${% unless interactive %}- No person is watching this session. Do not wait for a reply or address a reader at a terminal; work until the task is done or cannot go further, then report.
\${% endunless %}- Be direct and factual. Do not open with praise or filler, and do not end a result with a question or an offer of further help.`

const SUBAGENT_RULES = `# Rules

- Paths are relative to the working directory given in the environment details. Stay within the delegated task; do not start unrelated work.
- You cannot ask anyone for input: choose the most reasonable reading of the task and state your assumptions in the report.
- Be direct and factual: report what you found or changed, with file paths.`

/** Constraints every action must respect; autonomy and interactivity change the wording. */
export const rules = defineComponent("rules", (ctx) => (ctx.audience === "subagent" ? SUBAGENT_RULES : RULES), {
  reads: ["audience"],
})
