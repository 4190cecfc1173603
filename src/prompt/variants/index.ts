import type { Variant } from "../variant.js"
import { claude } from "./claude.js"
import { compact } from "./compact.js"
import { gemini } from "./gemini.js"
import { generic } from "./generic.js"
import { gpt } from "./gpt.js"
import { subagent } from "./subagent.js"

/** The built-in variants. */
export const BUILTIN_VARIANTS: readonly Variant[] = [subagent, compact, claude, gpt, gemini, generic]
