import { TAG } from "../../notices.js"
import { data, defineComponent, tpl } from "../component.js"

/** The environment: OS, shell, home, working directory, git, date and mode. Always last: it changes most. */
export const systemInfo = defineComponent(
  "system-info",
  (ctx) => {
    const lines = [
      `Operating system: ${ctx.platform.os}${ctx.platform.osVersion ? ` ${ctx.platform.osVersion}` : ""}`,
      `Shell: ${ctx.platform.shell}`,
      `Home directory: ${ctx.platform.home}`,
      `Working directory: ${ctx.cwd}`,
    ]
    if (ctx.git) {
      lines.push(`Git repository: ${ctx.git.root}${ctx.git.branch ? ` (branch ${ctx.git.branch})` : ""}`)
    }
    lines.push(`Today's date: ${ctx.date}`)
    if (ctx.audience === "primary") lines.push(`Mode: ${ctx.mode}`)
    const parts = [tpl("# Environment details\n\n"), data(lines.join("\n"))]
    // Keep the leading spaces of porcelain status lines (" M file"): they are part of the format.
    const status = ctx.git?.status?.replace(/^\n+|\s+$/g, "")
    if (status) parts.push(tpl("\n\nGit status:\n"), data(status))
    return parts
  },
  { volatile: true, tag: TAG.environmentDetails, reads: ["platform", "cwd", "git", "date", "mode", "audience"] },
)
