import type { OptionalPeer } from "../optional-peer.js"

/** The AI SDK as the optional peer of `promptline/ai-sdk`; `range` is package.json's `peerDependencies.ai`. */
export const AI_PEER: OptionalPeer = { name: "ai", range: ">=5 <8", entry: "promptline/ai-sdk" }
