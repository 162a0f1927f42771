/**
 * Offloaded output over MCP: every output the session saved (a result that truncation, the
 * persistence gate or the batch budget cut) is also an MCP resource, `toolwright://output/<id>`,
 * listed by `resources/list` and read in pages of lines with
 * `toolwright://output/<id>?offset=<line>&limit=<lines>`. A cut result carries a `resource_link`
 * to its saved output beside the file path, so a host whose model cannot reach our file system can
 * still read the rest.
 *
 * @since 0.1.0
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import { DEFAULT_TRUNCATE_LINES, type OutputStore, type PersistedOutput } from "../output/index.js"
import type { CallResult } from "../tool/index.js"

/** The URI scheme and path of saved outputs. @category constants */
export const OUTPUT_URI_PREFIX = "toolwright://output/"

/** The resource template of a page of a saved output (RFC 6570). @category constants */
export const OUTPUT_URI_TEMPLATE = `${OUTPUT_URI_PREFIX}{id}{?offset,limit}`

/** Lines in a page when the URI names none (the per-call line limit). @category constants */
export const DEFAULT_PAGE_LINES = DEFAULT_TRUNCATE_LINES

/** MCP's error code for a resource that does not exist. @category constants */
export const RESOURCE_NOT_FOUND = -32002

/** The `_meta` key of a page's position in its output. @category constants */
export const PAGE_META = "toolwright/page"

/** Where a page starts and how many lines it has. @category models */
export interface PageRequest {
  readonly id: string
  readonly offsetLine: number
  readonly limitLines: number
}

/** The URI of a saved output, or of one page of it. @category constructors */
export const outputUri = (id: string, page?: { readonly offsetLine: number; readonly limitLines: number }): string =>
  page === undefined
    ? `${OUTPUT_URI_PREFIX}${encodeURIComponent(id)}`
    : `${OUTPUT_URI_PREFIX}${encodeURIComponent(id)}?offset=${page.offsetLine}&limit=${page.limitLines}`

const integerParam = (query: URLSearchParams, name: string, min: number): Result.Result<number | undefined, string> => {
  const raw = query.get(name)
  if (raw === null) return Result.succeed(undefined)
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN
  return Number.isSafeInteger(n) && n >= min
    ? Result.succeed(n)
    : Result.fail(`"${name}" must be an integer of ${min} or more, got "${raw}".`)
}

/**
 * Parses `toolwright://output/<id>[?offset=N&limit=M]`; `offset` is 0-based and defaults to 0,
 * `limit` defaults to {@link DEFAULT_PAGE_LINES}. Other query keys are refused.
 *
 * @category parsing
 */
export const parseOutputUri = (uri: string): Result.Result<PageRequest, string> => {
  if (!uri.startsWith(OUTPUT_URI_PREFIX)) return Result.fail(`Not a toolwright output URI: ${uri}`)
  const rest = uri.slice(OUTPUT_URI_PREFIX.length)
  const q = rest.indexOf("?")
  const rawId = q === -1 ? rest : rest.slice(0, q)
  let id: string
  try {
    id = decodeURIComponent(rawId)
  } catch {
    return Result.fail(`The output id in ${uri} is not valid percent-encoding.`)
  }
  if (id === "" || id.includes("/")) return Result.fail(`The output URI must be ${OUTPUT_URI_PREFIX}<id>, got ${uri}`)
  const query = new URLSearchParams(q === -1 ? "" : rest.slice(q + 1))
  const unknown = [...query.keys()].filter((k) => k !== "offset" && k !== "limit")
  if (unknown.length > 0) return Result.fail(`Unknown query parameter(s) ${unknown.join(", ")}: only offset and limit are accepted.`)
  const offset = integerParam(query, "offset", 0)
  if (Result.isFailure(offset)) return Result.fail(offset.failure)
  const limit = integerParam(query, "limit", 1)
  if (Result.isFailure(limit)) return Result.fail(limit.failure)
  return Result.succeed({ id, offsetLine: offset.success ?? 0, limitLines: limit.success ?? DEFAULT_PAGE_LINES })
}

const kib = (bytes: number): string => `${Math.max(1, Math.round(bytes / 1024)).toLocaleString("en-US")} KB`

/** How to read a saved output in pages, for a model. @category constructors */
export const pagingHint = (entry: PersistedOutput): string =>
  `Full output of ${entry.toolName} (${entry.lines.toLocaleString("en-US")} lines, ${kib(entry.bytes)}), saved because it was too large to return whole. ` +
  `Read it in pages of lines: ${outputUri(entry.id, { offsetLine: 0, limitLines: DEFAULT_PAGE_LINES })}, then offset=${DEFAULT_PAGE_LINES}, and so on.`

/** A saved output as an MCP resource (`resources/list` entry). @category constructors */
export const toResource = (entry: PersistedOutput) => ({
  uri: outputUri(entry.id),
  name: entry.id,
  title: `Output of ${entry.toolName}`,
  description: pagingHint(entry),
  mimeType: "text/plain",
  size: entry.bytes
})

/** A `resource_link` content block to a saved output. @category constructors */
export const toResourceLink = (entry: PersistedOutput) => ({ type: "resource_link" as const, ...toResource(entry) })

const textOf = (result: CallResult): string =>
  result._tag === "Success"
    ? result.llmContent.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n")
    : result.message

/** The saved outputs a (cut) result names by path, in the order they were saved. @category getters */
export const savedOutputsOf = (result: CallResult, outputs: ReadonlyArray<PersistedOutput>): ReadonlyArray<PersistedOutput> => {
  if (result._tag === "Cancelled") return []
  const text = textOf(result)
  return outputs.filter((entry) => text.includes(entry.path))
}

/** A page of a saved output as MCP `resources/read` contents. @category constructors */
export const readOutputPage = Effect.fnUntraced(function*(store: OutputStore["Service"], uri: string) {
  const parsed = parseOutputUri(uri)
  if (Result.isFailure(parsed)) return yield* Effect.fail(new McpError(ErrorCode.InvalidParams, parsed.failure, { uri }))
  const { id, offsetLine, limitLines } = parsed.success
  const entry = yield* store.get(id).pipe(
    Effect.mapError(() => new McpError(RESOURCE_NOT_FOUND, `Resource not found: no saved output '${id}' in this session.`, { uri }))
  )
  const page = yield* store.read(id, { offsetLine, limitLines }).pipe(
    Effect.mapError((error) =>
      new McpError(error._tag === "InvalidOutputPage" ? ErrorCode.InvalidParams : ErrorCode.InternalError, error.message, { uri })
    )
  )
  const meta = {
    [PAGE_META]: {
      offsetLine: page.offsetLine,
      lineCount: page.lineCount,
      totalLines: page.totalLines,
      nextOffsetLine: page.nextOffsetLine,
      hasMore: page.hasMore,
      toolName: entry.toolName,
      bytes: entry.bytes,
      sha256: entry.sha256
    }
  }
  const contents: Array<{ uri: string; mimeType: string; text: string; _meta?: typeof meta }> = [
    { uri, mimeType: "text/plain", text: page.content, _meta: meta }
  ]
  if (page.hasMore) {
    // A note for a model reading through its host: where the next page is. Programs read contents[0].
    const next = outputUri(id, { offsetLine: page.nextOffsetLine, limitLines })
    contents.push({
      uri: next,
      mimeType: "text/plain",
      text: `[toolwright: lines ${page.offsetLine + 1}-${page.nextOffsetLine} of ${page.totalLines} shown; ` +
        `${page.totalLines - page.nextOffsetLine} more. Read ${next} for the next page.]`
    })
  }
  return { contents }
})

const runOrThrow = async <A>(effect: Effect.Effect<A, McpError>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  const failure = exit.cause.reasons.find(Cause.isFailReason)
  throw failure ? failure.error : new McpError(ErrorCode.InternalError, `Reading the saved output failed: ${Cause.pretty(exit.cause)}`)
}

/**
 * Answers `resources/list`, `resources/templates/list` and `resources/read` for the session's saved
 * outputs. The server must declare the `resources` capability.
 *
 * @category constructors
 */
export const registerOutputResources = (server: Server, store: OutputStore["Service"]): void => {
  server.setRequestHandler(ListResourcesRequestSchema, () =>
    runOrThrow(Effect.map(store.list, (entries) => ({ resources: entries.map(toResource) }))))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () =>
    Promise.resolve({
      resourceTemplates: [{
        uriTemplate: OUTPUT_URI_TEMPLATE,
        name: "toolwright-output",
        title: "A saved tool output, by pages of lines",
        description: `A tool output that was too large to return whole. offset: first line (0-based, default 0); limit: lines (default ${DEFAULT_PAGE_LINES}).`,
        mimeType: "text/plain"
      }]
    }))
  server.setRequestHandler(ReadResourceRequestSchema, (request) => runOrThrow(readOutputPage(store, request.params.uri)))
}

/**
 * Adds a `resource_link` to every saved output the result names. Returns the links added, so the
 * caller can tell the host that the resource list changed.
 *
 * @category constructors
 */
export const withOutputLinks = Effect.fnUntraced(function*<T extends { readonly content: ReadonlyArray<unknown> }>(
  store: OutputStore["Service"],
  result: CallResult,
  mcpResult: T
) {
  const saved = savedOutputsOf(result, yield* store.list)
  if (saved.length === 0) return { result: mcpResult, linked: 0 }
  return {
    result: { ...mcpResult, content: [...mcpResult.content, ...saved.map(toResourceLink)] } as T,
    linked: saved.length
  }
})
