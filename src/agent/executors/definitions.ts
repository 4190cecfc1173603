import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import path from "node:path"
import type { Language, Node, Parser } from "@vscode/tree-sitter-wasm"

/** One definition found in a source file: its 1-based line, the line's text, and its nesting. */
export interface Definition {
  line: number
  text: string
  /** 0 for a top-level definition, 1 for a member of a top-level class, trait or impl. */
  depth: 0 | 1
}

/** How to find definitions in one language's syntax tree. */
interface LanguageRules {
  grammar: string
  /** Node types that are definitions. */
  definitions: ReadonlySet<string>
  /** Node types whose named children are looked at instead (export, decorators). */
  wrappers: ReadonlySet<string>
  /** Definition types whose members are listed, by the type of their body node. */
  bodies: ReadonlySet<string>
  /** Node types listed as members inside a body. */
  members: ReadonlySet<string>
}

const set = (...items: string[]): ReadonlySet<string> => new Set(items)

const SCRIPT_DEFINITIONS = [
  "function_declaration",
  "generator_function_declaration",
  "class_declaration",
  "abstract_class_declaration",
  "interface_declaration",
  "type_alias_declaration",
  "enum_declaration",
  "internal_module",
  "module",
  "lexical_declaration",
  "variable_declaration",
]

const script = (grammar: string): LanguageRules => ({
  grammar,
  definitions: set(...SCRIPT_DEFINITIONS),
  wrappers: set("export_statement", "expression_statement", "ambient_declaration"),
  bodies: set("class_body"),
  members: set("method_definition", "abstract_method_signature", "method_signature"),
})

const RULES: Readonly<Record<string, LanguageRules>> = {
  typescript: script("typescript"),
  tsx: script("tsx"),
  javascript: script("javascript"),
  python: {
    grammar: "python",
    definitions: set("function_definition", "class_definition"),
    wrappers: set("decorated_definition"),
    bodies: set("block"),
    members: set("function_definition"),
  },
  go: {
    grammar: "go",
    definitions: set("function_declaration", "method_declaration", "type_declaration"),
    wrappers: set(),
    bodies: set(),
    members: set(),
  },
  rust: {
    grammar: "rust",
    definitions: set(
      "function_item",
      "struct_item",
      "enum_item",
      "union_item",
      "trait_item",
      "impl_item",
      "mod_item",
      "type_item",
      "macro_definition",
    ),
    wrappers: set(),
    bodies: set("declaration_list"),
    members: set("function_item", "function_signature_item"),
  },
  java: {
    grammar: "java",
    definitions: set(
      "class_declaration",
      "interface_declaration",
      "enum_declaration",
      "record_declaration",
      "annotation_type_declaration",
    ),
    wrappers: set(),
    bodies: set("class_body", "interface_body", "enum_body"),
    members: set(
      "method_declaration",
      "constructor_declaration",
      "class_declaration",
      "interface_declaration",
      "enum_declaration",
      "record_declaration",
    ),
  },
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascript",
  ".py": "python",
  ".pyi": "python",
  ".go": "go",
  ".rs": "rust",
  ".java": "java",
}

/** The language id of a source file by its extension, or undefined when it is not supported. */
export function languageOf(file: string): string | undefined {
  return EXTENSIONS[path.extname(file).toLowerCase()]
}

/** Values whose declaration counts as a definition when not exported (`const f = () => …`). */
const CALLABLE_VALUES = set("arrow_function", "function_expression", "function", "generator_function", "class")

function isDefinition(node: Node, rules: LanguageRules, exported: boolean): boolean {
  if (!rules.definitions.has(node.type)) return false
  if (node.type !== "lexical_declaration" && node.type !== "variable_declaration") return true
  if (exported) return true
  return node.namedChildren.some((d) => {
    const value = d?.childForFieldName("value")
    return value ? CALLABLE_VALUES.has(value.type) : false
  })
}

const MAX_LINE = 150

function lineAt(lines: string[], row: number): string {
  const text = (lines[row] ?? "").trim()
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE)}…` : text
}

/** Top-level definitions of a syntax tree and the members of top-level classes, traits and impls. */
function collect(root: Node, rules: LanguageRules, lines: string[]): Definition[] {
  const found: Definition[] = []
  const visit = (node: Node, depth: 0 | 1, exported: boolean, row: number) => {
    if (rules.wrappers.has(node.type)) {
      const isExport = node.type === "export_statement"
      for (const child of node.namedChildren) {
        // A decorated definition is shown at its `def`/`class` line, an export at its `export` line.
        if (child) visit(child, depth, exported || isExport, isExport ? row : child.startPosition.row)
      }
      return
    }
    const accepted = depth === 0 ? isDefinition(node, rules, exported) : rules.members.has(node.type)
    if (!accepted) return
    found.push({ line: row + 1, text: lineAt(lines, row), depth })
    if (depth === 1) return
    for (const child of node.namedChildren) {
      if (!child || !rules.bodies.has(child.type)) continue
      for (const member of child.namedChildren) if (member) visit(member, 1, false, member.startPosition.row)
    }
  }
  for (const child of root.namedChildren) if (child) visit(child, 0, false, child.startPosition.row)
  return found.sort((a, b) => a.line - b.line || a.depth - b.depth)
}

/**
 * Outlines source files with tree-sitter grammars compiled to WebAssembly (shipped by
 * @vscode/tree-sitter-wasm, so nothing is downloaded). Holds the parser and the loaded languages;
 * reuse one instance across calls and `close()` it when done.
 */
type TreeSitterModule = typeof import("@vscode/tree-sitter-wasm")
let treeSitterModule: Promise<TreeSitterModule> | undefined
/** @vscode/tree-sitter-wasm (a CommonJS module), imported on first use. */
function treeSitter(): Promise<TreeSitterModule> {
  treeSitterModule ??= import("@vscode/tree-sitter-wasm").then(
    (m) => (m as TreeSitterModule & { default?: TreeSitterModule }).default ?? m,
  )
  return treeSitterModule
}

export class DefinitionParser {
  private parser: Promise<Parser> | undefined
  private readonly languages = new Map<string, Promise<Language>>()
  private readonly wasmDir = path.dirname(createRequire(import.meta.url).resolve("@vscode/tree-sitter-wasm"))

  private getParser(): Promise<Parser> {
    // The grammar runtime is loaded on the first outline, once (importing this module loads nothing of it).
    this.parser ??= treeSitter().then(async (ts) => {
      await ts.Parser.init()
      return new ts.Parser()
    })
    return this.parser
  }

  private getLanguage(grammar: string): Promise<Language> {
    let loaded = this.languages.get(grammar)
    if (!loaded) {
      loaded = Promise.all([readFile(path.join(this.wasmDir, `tree-sitter-${grammar}.wasm`)), treeSitter()]).then(
        ([bytes, ts]) => ts.Language.load(bytes),
      )
      this.languages.set(grammar, loaded)
    }
    return loaded
  }

  /** The definitions of one file's text, or undefined when its language is not supported. */
  async outline(file: string, text: string): Promise<Definition[] | undefined> {
    const language = languageOf(file)
    const rules = language ? RULES[language] : undefined
    if (!rules) return undefined
    const parser = await this.getParser()
    parser.setLanguage(await this.getLanguage(rules.grammar))
    const tree = parser.parse(text)
    if (!tree) return []
    try {
      return collect(tree.rootNode, rules, text.split(/\r?\n/))
    } finally {
      tree.delete()
    }
  }

  /** Frees the parser's WebAssembly memory. */
  async close(): Promise<void> {
    const parser = this.parser
    this.parser = undefined
    if (parser) (await parser).delete()
  }
}
