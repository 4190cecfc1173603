import { readFile } from "node:fs/promises"
import type { z } from "zod"
import { FileError, ValidationError } from "../errors.js"
import { fieldIssues } from "../field-issues.js"
import { parseJsonDocument } from "../json.js"
import { lazyModule, lazyObject, lazyValue } from "../lazy-module.js"
import { quickParseContext } from "./quick-parse.js"

/**
 * The schema of a PromptContext: everything a build depends on. A build reads nothing else
 * (no disk, no clock, no environment), so the same context always gives the same prompt.
 */

/** Builds the context's schemas with zod (called once, on the first validation). */
function buildSchemas(z: typeof import("zod").z) {
  const gate = z.boolean().optional()

  /** When a conditional instruction file applies. */
  const activationSchema = z.discriminatedUnion("when", [
    z.object({ when: z.literal("always") }).strict(),
    /** Applies once the agent touches a path matching one of the globs (relative to the file's base). */
    z.object({ when: z.literal("paths"), globs: z.array(z.string().min(1)).min(1) }).strict(),
    /** Listed by description; the agent loads it when it judges it relevant. */
    z.object({ when: z.literal("requested"), description: z.string().min(1) }).strict(),
    /** Only when the user names it. */
    z.object({ when: z.literal("manual") }).strict(),
  ])

  const instructionFileSchema = z
    .object({
      /** Where the file is, POSIX form: relative to cwd for project files, `~/...` for user files. */
      path: z.string().min(1),
      /** The convention it follows, e.g. `agents-md`, `claude`, `cline`, `cursor`, `windsurf`, `copilot`, `gemini`. */
      convention: z.string().min(1),
      scope: z.enum(["user", "project"]),
      /** The text the model gets (frontmatter removed, imports expanded). */
      text: z.string(),
      activation: activationSchema.default({ when: "always" }),
      /** Folder the file applies to (POSIX, relative to cwd, "." for cwd); globs resolve against it. */
      base: z.string().optional(),
      /** True when the size budget cut this file's text. */
      truncated: z.boolean().optional(),
      /** True for a file in a folder below cwd: attached when the agent works there, not rendered up front. */
      nested: z.boolean().optional(),
    })
    .strict()

  const skillSchema = z
    .object({
      name: z.string().min(1),
      description: z.string().min(1),
      /** Location of the SKILL.md file, POSIX form. */
      path: z.string().min(1),
      scope: z.enum(["user", "project"]).default("project"),
    })
    .strict()

  const jsonSchemaObject = z.record(z.string(), z.unknown())

  const mcpToolSchema = z
    .object({
      name: z.string().min(1),
      description: z.string().optional(),
      inputSchema: jsonSchemaObject.default({ type: "object", properties: {} }),
    })
    .strict()

  const mcpServerSchema = z
    .object({
      name: z.string().min(1),
      instructions: z.string().optional(),
      tools: z.array(mcpToolSchema).default([]),
      resources: z
        .array(
          z
            .object({
              uri: z.string(),
              name: z.string(),
              description: z.string().optional(),
              mimeType: z.string().optional(),
            })
            .strict(),
        )
        .default([]),
      resourceTemplates: z
        .array(
          z
            .object({
              uriTemplate: z.string(),
              name: z.string(),
              description: z.string().optional(),
              mimeType: z.string().optional(),
            })
            .strict(),
        )
        .default([]),
    })
    .strict()

  const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a date as YYYY-MM-DD")

  const promptContextSchema = z
    .object({
      version: z.literal(1),
      /** Working directory, POSIX form. */
      cwd: z.string().min(1),
      platform: z
        .object({
          os: z.string().min(1),
          osVersion: z.string().optional(),
          shell: z.string().min(1),
          home: z.string().min(1),
        })
        .strict(),
      /** Today's date, given by the caller: a build never reads the clock. */
      date: isoDate,
      model: z.object({ id: z.string().min(1), provider: z.string().min(1) }).strict(),
      mode: z.enum(["act", "plan"]).default("act"),
      audience: z.enum(["primary", "subagent"]).default("primary"),
      /** False when no person watches the terminal (CI, a headless run). */
      interactive: z.boolean().default(true),
      /** `auto` runs without asking the user anything. */
      autonomy: z.enum(["ask", "auto"]).default("ask"),
      features: z.object({ browser: gate, webTools: gate, subagents: gate, taskProgress: gate }).strict().default({}),
      tools: z
        .object({
          include: z.array(z.string()).optional(),
          exclude: z.array(z.string()).optional(),
          rename: z
            .record(z.string(), z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "tool names are 1-64 of [a-zA-Z0-9_-]"))
            .optional(),
          /** Tool search: deferrable tools leave the tool list when the definitions are large (docs/tools.md). */
          search: z
            .object({
              /** `auto` (default): when the definitions exceed the threshold; `always`; `never`. */
              mode: z.enum(["auto", "always", "never"]).optional(),
              /** Below 1: a share of the model's input window; from 1: tokens. Default 0.1. */
              threshold: z.number().positive().optional(),
              /** Tool ids always loaded, even when deferrable. */
              pin: z.array(z.string()).optional(),
              /** Tool ids deferrable although their spec does not say so. */
              defer: z.array(z.string()).optional(),
            })
            .strict()
            .optional(),
        })
        .strict()
        .optional(),
      /** Forces a variant instead of matching one. */
      variant: z.string().optional(),
      /** Forces a tool-calling dialect instead of the variant's default. */
      toolCalling: z.enum(["native", "xml"]).optional(),
      /** Branding: hosts name their own agent. */
      agent: z
        .object({
          name: z.string().min(1).default("promptline"),
          identity: z.string().optional(),
          /** Paths (or URLs) of the host's own documentation, read when the user asks about the agent. */
          docs: z.array(z.string()).optional(),
        })
        .strict()
        .default({ name: "promptline" }),
      git: z
        .object({ root: z.string(), branch: z.string().optional(), status: z.string().optional() })
        .strict()
        .optional(),
      /** Already read, ordered general → specific. */
      instructions: z.array(instructionFileSchema).default([]),
      skills: z.array(skillSchema).default([]),
      mcpServers: z.array(mcpServerSchema).default([]),
      customPrompt: z
        .object({ mode: z.enum(["replace", "append"]), text: z.string() })
        .strict()
        .optional(),
      /** Where project instructions and volatile facts go. */
      placement: z.enum(["system", "context-message"]).default("context-message"),
      /** The user's preferred language for answers, e.g. "Prefer TypeScript" or "Answer in German". */
      language: z.string().optional(),
      browser: z
        .object({
          viewport: z.object({ width: z.number().int().positive(), height: z.number().int().positive() }).strict(),
        })
        .strict()
        .optional(),
      /** Runtime template overrides (highest layer). */
      overrides: z.record(z.string(), z.string()).optional(),
    })
    .strict()
  return { activationSchema, instructionFileSchema, skillSchema, mcpToolSchema, mcpServerSchema, promptContextSchema }
}

/** zod, loaded on the first validation: importing this module builds no schema. */
const zod = lazyModule<typeof import("zod")>("zod")
const schemas = lazyValue(() => buildSchemas(zod().z))

/** When a conditional instruction file applies. */
export const activationSchema = lazyObject(() => schemas().activationSchema)
/** An instruction file as the context holds it. */
export const instructionFileSchema = lazyObject(() => schemas().instructionFileSchema)
/** A skill the agent can load. */
export const skillSchema = lazyObject(() => schemas().skillSchema)
/** One tool of an MCP server snapshot. */
export const mcpToolSchema = lazyObject(() => schemas().mcpToolSchema)
/** An MCP server snapshot: its tools and resources. */
export const mcpServerSchema = lazyObject(() => schemas().mcpServerSchema)
/** The whole PromptContext. */
export const promptContextSchema = lazyObject(() => schemas().promptContextSchema)

/** Everything a prompt build depends on; serializable and versioned. */
export type PromptContext = z.output<typeof promptContextSchema>
/** A PromptContext as written by a person: defaults may be left out. */
export type PromptContextInput = z.input<typeof promptContextSchema>
export type InstructionFile = z.output<typeof instructionFileSchema>
export type Activation = z.output<typeof activationSchema>
export type SkillInfo = z.output<typeof skillSchema>
export type McpServerInfo = z.output<typeof mcpServerSchema>
export type McpToolInfo = z.output<typeof mcpToolSchema>

/** The current PromptContext schema version. */
export const PROMPT_CONTEXT_VERSION = 1

/** Validates a value as a PromptContext, filling defaults; throws a ValidationError listing every bad field. */
export function parseContext(value: unknown, file?: string): PromptContext {
  const quick = quickParseContext(value)
  if (quick !== undefined) return quick as PromptContext
  const result = promptContextSchema.safeParse(value)
  if (!result.success) throw new ValidationError("prompt context", fieldIssues(result.error), file)
  return result.data
}

/** Reads and validates a PromptContext JSON file. */
export async function loadContext(file: string): Promise<PromptContext> {
  let raw: string
  try {
    raw = await readFile(file, "utf8")
  } catch (cause) {
    throw new FileError("context-unreadable", file, `cannot read the context file (${(cause as Error).message})`, {
      cause,
    })
  }
  return parseContext(parseJsonDocument(raw, file, "context-not-json"), file)
}

/** Builds a context from the few fields that have no sensible default, filling the rest. */
export function createContext(input: Omit<PromptContextInput, "version"> & { version?: 1 }): PromptContext {
  return parseContext({ version: PROMPT_CONTEXT_VERSION, ...input })
}
