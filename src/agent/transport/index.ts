/** The agent's transport: the provider registry, one request over HTTP, the Responses WebSocket, retries. */
export * from "./endpoints.js"
export * from "./http.js"
export * from "./response.js"
export * from "./retry.js"
export * from "./websocket.js"
