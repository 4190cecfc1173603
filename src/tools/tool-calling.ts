/** How the model calls tools: the provider's native tool API, or XML written in its text. */
export type ToolCalling = "native" | "xml"
