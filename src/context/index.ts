// The workspace-gathering part of the public API: re-exports only.
export * from "./activate.js"
export * from "./gather.js"
export { DEFAULT_INSTRUCTION_BUDGET } from "./instructions/budget.js"
export { MCP_CLIENT_INFO, McpConnectError, McpConnection } from "./mcp/client.js"
export {
  type McpConfigFormat,
  type McpConfigSource,
  type McpServerConfig,
  mcpConfigSources,
  parseMcpConfig,
  readMcpConfig,
} from "./mcp/config.js"
export { gatherMcp, type McpInput, type McpItem, readMcpServers } from "./mcp/servers.js"
export { DEFAULT_MCP_TIMEOUT_MS, type McpSnapshot, snapshotServers } from "./mcp/snapshot.js"
export type { EntryStatus, GatherEntry, GatherReport } from "./report.js"
export { USER_ROOTS, type UserRoot } from "./user-roots.js"
