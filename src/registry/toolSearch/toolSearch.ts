/**
 * `tool_search`: finds deferred tools by `select:` or keywords, reveals them and publishes the new
 * declaration list in one step, and returns their schemas. The revealed tools are callable from the
 * next turn on.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type AnyTool, declareTool, defineTool, ExecutionFailed, Kind, textResult } from "../../tool/index.js"
import type { ToolRegistry } from "../registry.js"
import {
  clampMaxResults,
  DEFAULT_MAX_RESULTS,
  EMPTY_QUERY,
  formatSearchResult,
  HARD_MAX_RESULTS,
  buildSearchIndex,
  isSelectQuery,
  NO_TOOL_NAMES,
  parseSelect,
  publishFailedMessage,
  type SearchIndex,
  type SearchMessage
} from "./index.js"

const DESCRIPTION = `Fetches the full schemas of deferred tools so they can be called.

Deferred tools are listed by name in the deferred-tools reminder; until you fetch one here it has no schema and cannot be called. The result is a <functions> block with each tool's schema (informational); the tools become callable on your NEXT turn.

Query forms:
- "select:ToolA,ToolB" — fetch these exact tools by name
- "notebook jupyter" — keyword search, best matches first (up to max_results)
- "+slack send" — a word with + must appear in the tool name; the other words rank the results`

/** What a `tool_search` call did. @category models */
export interface ToolSearchData {
  readonly loaded: ReadonlyArray<string>
  readonly revealed: ReadonlyArray<string>
  readonly notFound: ReadonlyArray<string>
  readonly truncated: ReadonlyArray<string>
}

const failWith = (message: SearchMessage) =>
  new ExecutionFailed({ message: message.llmContent, display: message.returnDisplay })

/** The params of `tool_search`. @category schemas */
export const ToolSearchParams = Schema.Struct({
  query: Schema.String.annotate({
    description: "`select:Name1,Name2` for exact tools, or keywords (prefix a word with + to require it in the name)."
  }).check(Schema.isMinLength(1)),
  max_results: Schema.optionalKey(
    Schema.Int.annotate({ description: `Maximum number of tools to return (default ${DEFAULT_MAX_RESULTS}).` })
      .check(Schema.isBetween({ minimum: 1, maximum: HARD_MAX_RESULTS }))
  )
})

/** `tool_search`'s declaration: every session defines the tool from it (its params' JSON Schema is derived once). @category declarations */
export const toolSearchDeclaration = declareTool({
  name: "tool_search",
  displayName: "ToolSearch",
  description: DESCRIPTION,
  kind: Kind.Search,
  alwaysLoad: true,
  searchHint: "tool search discover find schema",
  params: ToolSearchParams
})

/**
 * Makes the `tool_search` tool over a registry.
 *
 * @category constructors
 */
export const makeToolSearch = (registry: ToolRegistry["Service"]) => {
  // The keyword index is built once per tool set: the registry hands out the same deferred array
  // until a tool is added or removed, and reveals only change which of them are candidates.
  let indexed: SearchIndex<AnyTool> | undefined
  const indexOf = (deferred: ReadonlyArray<AnyTool>): SearchIndex<AnyTool> =>
    indexed !== undefined && indexed.tools === deferred ? indexed : (indexed = buildSearchIndex(deferred))

  const load = Effect.fnUntraced(function*(names: ReadonlyArray<string>, truncated: ReadonlyArray<string>) {
    if (names.length === 0) return yield* failWith(NO_TOOL_NAMES)
    const found: Array<string> = []
    const tools: Array<AnyTool> = []
    const notFound: Array<string> = []
    for (const requested of names) {
      const canonical = yield* registry.canonicalName(requested)
      if (canonical === undefined) {
        notFound.push(requested)
        continue
      }
      const ensured = yield* Effect.result(registry.ensure(canonical))
      if (ensured._tag === "Failure") {
        yield* Effect.logWarning(`[tool_search] loading "${canonical}" failed: ${ensured.failure.message}`)
        notFound.push(requested)
        continue
      }
      found.push(canonical)
      tools.push(ensured.success)
    }
    const hidden: Array<string> = []
    for (const name of found) if (yield* registry.isDeferredAndHidden(name)) hidden.push(name)
    const revealed = yield* registry.reveal(hidden).pipe(
      Effect.catchTag("PublishFailed", (e) => Effect.fail(failWith(publishFailedMessage(e.message))))
    )
    const message = formatSearchResult({
      schemas: tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parametersJsonSchema })),
      notFound,
      truncated
    })
    return textResult<ToolSearchData>(message.llmContent, {
      display: message.returnDisplay,
      data: { loaded: found, revealed, notFound, truncated }
    })
  })

  return defineTool({
    ...toolSearchDeclaration,
    invoke: (params) =>
      Effect.succeed({
        description: `Search tools: ${params.query}`,
        execute: () =>
          Effect.gen(function*() {
            const query = params.query.trim()
            if (query === "") return yield* failWith(EMPTY_QUERY)
            const max = clampMaxResults(params.max_results ?? DEFAULT_MAX_RESULTS)
            if (isSelectQuery(query)) {
              const { names, truncated } = parseSelect(query, max)
              return yield* load(names, truncated)
            }
            const view = yield* registry.deferredView
            const ranked = indexOf(view.deferred).search(query, max, (tool) => view.isHidden(tool.name))
            if (ranked._tag === "NoSearchTerms") return yield* failWith(ranked.message)
            if (ranked._tag === "NoMatches") {
              return textResult<ToolSearchData>(ranked.message.llmContent, {
                display: ranked.message.returnDisplay,
                data: { loaded: [], revealed: [], notFound: [], truncated: [] }
              })
            }
            return yield* load(ranked.names, [])
          })
      })
  })
}
