// promptline/agent: the agent loop, its tool executors, sessions, approval, the HTTP/WebSocket transport,
// and the workspace and child-environment policies the executors enforce.
export * from "../secret-env.js"
export * from "./approval.js"
export { agentSecretPolicy, childEnv, PROVIDER_KEY_ENV, type SecretEnvOptions } from "./child-env.js"
export * from "./events.js"
export * from "./executors/index.js"
export { Agent, type AgentConfig, type RunResult, type SendRequest } from "./loop.js"
export { McpPool } from "./mcp-pool.js"
export * from "./session.js"
export * from "./transport/index.js"
export { type AllowedPath, type PathPolicy, type RefusedPath, resolvePath } from "./workspace.js"
