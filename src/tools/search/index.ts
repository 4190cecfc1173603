// Tool search: deferrable tools leave the tool list when the definitions are large (docs/tools.md).
export * from "./deferred-tools.js"
export * from "./fixed-tools.js"
export * from "./hybrid.js"
export * from "./plan.js"
export * from "./render.js"
export * from "./tool-index.js"
export * from "./validate.js"
