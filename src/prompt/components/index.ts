import type { Component } from "../component.js"
import { actVsPlan } from "./act-vs-plan.js"
import { agentDocs } from "./agent-docs.js"
import { agentRole } from "./agent-role.js"
import { capabilities } from "./capabilities.js"
import { editingFiles } from "./editing-files.js"
import { feedback } from "./feedback.js"
import { mcpServers } from "./mcp-servers.js"
import { objective } from "./objective.js"
import { rules } from "./rules.js"
import { skills } from "./skills.js"
import { systemInfo } from "./system-info.js"
import { taskProgress } from "./task-progress.js"
import { toolUse } from "./tool-use.js"
import { userInstructions } from "./user-instructions.js"

/** Every built-in component, by id. Variants list the ones they use, in their order. */
export const BUILTIN_COMPONENTS: readonly Component[] = [
  agentRole,
  toolUse,
  editingFiles,
  capabilities,
  actVsPlan,
  taskProgress,
  rules,
  feedback,
  objective,
  agentDocs,
  mcpServers,
  skills,
  userInstructions,
  systemInfo,
]

/** The standard section order: stable text first, then the volatile sections (date and cwd last). */
export const STANDARD_ORDER: readonly string[] = BUILTIN_COMPONENTS.map((c) => c.id)
