/** What the engine reads from a template's Handlebars syntax tree: the variables it uses, the simple placeholders legacy
 *  rendering keeps when unresolved, and the constructs templates may not use. Walks the tree that Handlebars' own
 *  parser builds; nothing here matches template text with regular expressions. */
import Handlebars from "handlebars"
import type { MarkupFinding } from "@mailroom/core"

type Node = hbs.AST.Node

/** The built-in helpers `knownHelpersOnly` leaves callable. */
const builtInHelpers = new Set(["if", "unless", "each", "with", "lookup", "log", "blockHelperMissing", "helperMissing"])
/** Blocks that render their body in the same context (their body's paths are still the template's variables). */
const sameContextBlocks = new Set(["if", "unless"])

/** A simple placeholder (`{{name}}`, `{{user.name}}`) read from the template's root context. */
export interface Placeholder {
  readonly parts: ReadonlyArray<string>
  readonly literal: string
}

export interface TemplateFacts {
  /** First segments of every path read from the root context (`{{user.name}}` gives `user`), in order of appearance. */
  readonly rootNames: ReadonlyArray<string>
  readonly placeholders: ReadonlyArray<Placeholder>
  /** Constructs refused in an html part: unescaped output (`{{{x}}}`, `{{& x}}`), and in every part: partials and
   *  decorators (no partial is registered, and decorators run code at compile time). */
  readonly refused: ReadonlyArray<MarkupFinding & { readonly kind: "unescaped" | "unsupported" }>
}

const isPath = (node: Node | undefined): node is hbs.AST.PathExpression => node?.type === "PathExpression"

/** Reads a parsed template. `depth` counts the context changes (each, with, sections) around a node: a path is read
 *  from the root context when its `../` count climbs back to depth 0, or when it starts with `@root`. */
export const templateFacts = (program: hbs.AST.Program): TemplateFacts => {
  const rootNames: Array<string> = []
  const placeholders: Array<Placeholder> = []
  const refused: Array<MarkupFinding & { kind: "unescaped" | "unsupported" }> = []
  const seen = new Set<string>()

  const notePath = (path: hbs.AST.PathExpression, depth: number, simple: boolean) => {
    let parts: ReadonlyArray<string> | undefined
    if (path.data) parts = path.parts[0] === "root" ? path.parts.slice(1) : undefined
    else if (depth - path.depth === 0) parts = path.parts
    if (parts === undefined || parts.length === 0) return
    const name = parts[0]!
    if (!seen.has(name)) {
      seen.add(name)
      rootNames.push(name)
    }
    if (simple && !path.data) placeholders.push({ parts, literal: `{{${parts.join(".")}}}` })
  }

  const noteExpression = (node: Node | undefined, depth: number) => {
    if (node === undefined) return
    if (isPath(node)) notePath(node, depth, false)
    else if (node.type === "SubExpression") noteCall(node as hbs.AST.SubExpression, depth)
  }

  const noteCall = (node: { path: Node; params: Array<Node>; hash?: hbs.AST.Hash }, depth: number) => {
    const isHelperCall = node.params.length > 0 || (node.hash?.pairs.length ?? 0) > 0
    if (!isHelperCall || !(isPath(node.path) && builtInHelpers.has(node.path.original))) noteExpression(node.path, depth)
    for (const param of node.params) noteExpression(param, depth)
    for (const pair of node.hash?.pairs ?? []) noteExpression(pair.value, depth)
  }

  const at = (node: Node) => ({ line: node.loc.start.line, column: node.loc.start.column + 1 })

  const walk = (node: Node, depth: number) => {
    switch (node.type) {
      case "Program":
        for (const statement of (node as hbs.AST.Program).body) walk(statement, depth)
        return
      case "MustacheStatement": {
        const mustache = node as hbs.AST.MustacheStatement
        const simple = mustache.params.length === 0 && (mustache.hash?.pairs.length ?? 0) === 0
        if (simple && isPath(mustache.path)) notePath(mustache.path, depth, true)
        else noteCall(mustache, depth)
        if (!mustache.escaped) {
          refused.push({ kind: "unescaped", problem: "unescaped output ({{{…}}} or {{& …}})", path: "template", ...at(node) })
        }
        return
      }
      case "BlockStatement": {
        const block = node as hbs.AST.BlockStatement
        noteCall(block, depth)
        const name = isPath(block.path) ? block.path.original : ""
        const inner = sameContextBlocks.has(name) ? depth : depth + 1
        if (block.program) walk(block.program, inner)
        // An {{else}} of each runs when the list is empty, in the outer context; of a section or with, likewise.
        if (block.inverse) walk(block.inverse, depth)
        return
      }
      case "PartialStatement":
      case "PartialBlockStatement":
        refused.push({ kind: "unsupported", problem: "a partial ({{> …}}); templates have no partials", path: "template", ...at(node) })
        return
      case "Decorator":
      case "DecoratorBlock":
        refused.push({ kind: "unsupported", problem: "a decorator ({{* …}})", path: "template", ...at(node) })
        return
      default:
        return
    }
  }

  walk(program, 0)
  return { rootNames, placeholders, refused }
}

/** The line a Handlebars error names (`Parse error on line 3:`), when it names one. */
export const errorLine = (error: unknown): number | undefined => {
  if (typeof error === "object" && error !== null && "lineNumber" in error && typeof error.lineNumber === "number") {
    return error.lineNumber
  }
  const found = /on line (\d+)/.exec(String(error instanceof Error ? error.message : error))
  return found === null ? undefined : Number(found[1])
}

export const parseTemplate = (source: string): hbs.AST.Program => Handlebars.parse(source)

/** The template's text with every Handlebars expression taken out, as if each value rendered empty and every block
 *  rendered its body and its else, and a map from positions of that text back to the source. The markup checks read it
 *  too, so that markup split by an expression (`<scr{{x}}ipt>`, `java{{x}}script:`, `o{{x}}nload`) is found. */
export const contentOnly = (source: string, program: hbs.AST.Program): { text: string; at: (index: number) => number } => {
  const contents: Array<hbs.AST.ContentStatement> = []
  const collect = (node: Node | null | undefined) => {
    if (node === null || node === undefined) return
    if (node.type === "ContentStatement") contents.push(node as hbs.AST.ContentStatement)
    else if (node.type === "Program") for (const statement of (node as hbs.AST.Program).body) collect(statement)
    else if (node.type === "BlockStatement" || node.type === "DecoratorBlock") {
      collect((node as hbs.AST.BlockStatement).program)
      collect((node as hbs.AST.BlockStatement).inverse)
    }
  }
  collect(program)
  const starts = [0]
  for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) starts.push(i + 1)
  const offsetOf = (loc: hbs.AST.Position) => (starts[loc.line - 1] ?? 0) + loc.column
  const segments = contents
    // `original` is the content as written (`value` loses the whitespace `~` strips); Handlebars' typings declare it
    // as StripFlags, but the parser sets the source text.
    .map((content) => ({ from: offsetOf(content.loc.start), text: (content as unknown as { original: string }).original }))
    .sort((a, b) => a.from - b.from)
  let text = ""
  const table: Array<{ readonly textStart: number; readonly sourceStart: number }> = []
  for (const segment of segments) {
    table.push({ textStart: text.length, sourceStart: segment.from })
    text += segment.text
  }
  const at = (index: number) => {
    let low = 0
    let high = table.length - 1
    if (high < 0) return 0
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (table[mid]!.textStart <= index) low = mid
      else high = mid - 1
    }
    return table[low]!.sourceStart + (index - table[low]!.textStart)
  }
  return { text, at }
}
