// The public API of promptline: re-exports only.
export * from "./context/prompt-context.js"
export * from "./diagnostics.js"
export * from "./errors.js"
export * from "./history/message.js"
export * from "./models/types.js"
export * from "./providers/stream.js"
export * from "./tools/native.js"
export * from "./tools/spec.js"
