/**
 * A tool's declaration without its behaviour: name, display name, kind, params Schema, flags and a
 * description, which may live in a Markdown file beside the declaring module. A built-in tool's
 * declaration module is all a session imports to list it; the implementation spreads the same
 * declaration into `defineTool`, so params and description have one source.
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { pathFieldsOf } from "./annotations.js"
import {
  type DerivedParams,
  DerivedParamsKey,
  paramsJsonSchema,
  type ToolInfo,
  toolInfo,
  type ToolParams,
  type ToolSpec
} from "./tool.js"

/** A description kept in a Markdown file, read on first use. @category models */
export interface DescriptionFile {
  readonly _tag: "DescriptionFile"
  readonly url: URL
}

/**
 * The Markdown file `fileName` beside the module at `moduleUrl` (pass `import.meta.url`). The build
 * copies every `.md` under `src/` beside its module in `dist/`, and flat into `dist/bundle/`, where
 * the bundled declaration modules live: file names are unique across `src/` (the build checks).
 *
 * @category constructors
 */
export const descriptionFile = (moduleUrl: string, fileName: string): DescriptionFile => ({
  _tag: "DescriptionFile",
  url: new URL(fileName, moduleUrl)
})

/** What a declaration is made from: a tool spec's static facts, the description possibly in a file. @category models */
export interface DeclarationFacts<Name extends string, P extends ToolParams> extends
  Pick<
    ToolSpec<Name, P, unknown, unknown, unknown>,
    | "name"
    | "displayName"
    | "kind"
    | "params"
    | "shouldDefer"
    | "alwaysLoad"
    | "searchHint"
    | "maxOutputChars"
    | "truncateKeep"
    | "paramAliases"
  >
{
  readonly description: string | DescriptionFile
}

/**
 * A declared tool. Spread it into `defineTool({ ...declaration, invoke })`: the spread copies the
 * facts (the description is read then); `info` is not copied.
 *
 * @category models
 */
export interface ToolDeclaration<Name extends string = string, P extends ToolParams = ToolParams>
  extends Omit<DeclarationFacts<Name, P>, "description">
{
  /** Read from its file on first use, then kept. */
  readonly description: string
  /** The declaration as the registry lists it; the params' JSON Schema is derived on first use, then kept. */
  readonly info: ToolInfo
  /** The params' path fields and JSON Schema, derived on first use and kept for every tool defined from this declaration. */
  readonly [DerivedParamsKey]: DerivedParams
}

/** A Markdown description: the file's text without its final newline. */
const readDescription = (file: DescriptionFile): string => readFileSync(file.url, "utf8").replace(/\r?\n$/, "")

const once = <A>(compute: () => A): () => A => {
  let value: { readonly a: A } | undefined
  return () => (value ??= { a: compute() }).a
}

/**
 * Declares a tool. Nothing is read or derived until the description or `info` is first asked for.
 *
 * @category constructors
 */
export const declareTool = <const Name extends string, P extends ToolParams>(
  facts: DeclarationFacts<Name, P>
): ToolDeclaration<Name, P> => {
  const { description: source, ...rest } = facts
  const description = once(() => (typeof source === "string" ? source : readDescription(source)))
  const derived: DerivedParams = {
    params: facts.params,
    pathFields: once(() => pathFieldsOf(facts.params)),
    jsonSchema: once(() => paramsJsonSchema(facts.params))
  }
  const info = once(() => toolInfo({ ...rest, description: description() }, derived.pathFields(), derived.jsonSchema()))
  const declaration = { ...rest, [DerivedParamsKey]: derived } as ToolDeclaration<Name, P>
  Object.defineProperty(declaration, "description", { get: description, enumerable: true })
  Object.defineProperty(declaration, "info", { get: info, enumerable: false })
  return declaration
}
