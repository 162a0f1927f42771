/**
 * What a tool call returns: the parts the model sees, what a person sees, and the files it touched.
 *
 * A result is finished (`llmContent` holds every part) or streamed: `stream` then yields the parts
 * that follow `llmContent` as the tool produces them, and the output pipeline consumes it with
 * bounded memory (see `docs/output-budgets.md`, "Streamed output").
 *
 * @since 0.1.0
 */
import * as Stream from "effect/Stream"
import type { ToolError } from "./errors.js"

/** A text part of the model-facing content. @category models */
export interface TextPart {
  readonly type: "text"
  readonly text: string
}

/** An image (or other media) part, base64-encoded. @category models */
export interface MediaPart {
  readonly type: "image" | "audio" | "file"
  readonly data: string
  readonly mimeType: string
}

/**
 * A link to a resource the model may read (an MCP `resource_link`, passed through from an upstream
 * server): doors that speak MCP send it as a link, the others as a line of text.
 *
 * @category models
 */
export interface ResourceLinkPart {
  readonly type: "resource_link"
  readonly uri: string
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
}

/** One part of what the model sees. @category models */
export type LlmPart = TextPart | MediaPart | ResourceLinkPart

/**
 * How far a running call has got: a message (new shell output lines, an upstream server's
 * progress message) and, when the tool knows them, a progress value and its total. A progress part
 * is live only: doors show it while the call runs (MCP `notifications/progress`, the CLI spinner,
 * effect/ai callers); it is never part of the result.
 *
 * @category models
 */
export interface ProgressPart {
  readonly type: "progress"
  readonly message: string
  readonly progress?: number | undefined
  readonly total?: number | undefined
}

/** A part as the live tap sees it: a part of the output, or a progress part. @category models */
export type LivePart = LlmPart | ProgressPart

/**
 * Where a tapped part comes from: `live` (emitted by the tool while it runs, see
 * `ExecuteContext.emit`), `stream` (a streamed result's part as it arrives) or `result` (a
 * finished result's part, when the call ends). A door relaying live output to a host skips
 * `result` parts: the host gets them in the result itself.
 *
 * @category models
 */
export type PartOrigin = "live" | "stream" | "result"

/** A progress part. @category constructors */
export const progress = (message: string, values: { readonly progress?: number; readonly total?: number } = {}): ProgressPart => ({
  type: "progress",
  message,
  ...(values.progress !== undefined ? { progress: values.progress } : {}),
  ...(values.total !== undefined ? { total: values.total } : {})
})

/** A resource link as one line of text, for doors without links. @category getters */
export const resourceLinkText = (part: ResourceLinkPart): string =>
  `Resource Link: ${part.title || part.name || part.uri} at ${part.uri}`

/** A unified diff of one file, for people. @category models */
export interface FileDiffDisplay {
  readonly _tag: "FileDiff"
  readonly fileName: string
  readonly diff: string
  readonly originalContent: string | null
  readonly newContent: string
}

/** A todo list, for people. @category models */
export interface TodoListDisplay {
  readonly _tag: "TodoList"
  readonly todos: ReadonlyArray<{ readonly id: string; readonly content: string; readonly status: string }>
}

/** Terminal output with colours kept (ANSI), for people. @category models */
export interface AnsiOutputDisplay {
  readonly _tag: "AnsiOutput"
  readonly ansi: string
}

/** What a person sees for a call: plain text or a structured view. @category models */
export type Display = string | FileDiffDisplay | TodoListDisplay | AnsiOutputDisplay

/**
 * The output of a call as it arrives: parts with a typed error channel. Text parts in a stream are
 * chunks of one text (they are concatenated, not joined by newlines); media parts are kept whole.
 *
 * @category models
 */
export type ToolOutputStream = Stream.Stream<LlmPart, ToolError>

/**
 * A successful tool result. `data` is the typed success value for programs that call the tool
 * directly; doors ignore it. With `stream`, the parts of `llmContent` come first and the
 * stream's parts follow; a stream that fails makes the call fail with the error's code.
 *
 * @category models
 */
export interface ToolResult<A = unknown> {
  readonly llmContent: ReadonlyArray<LlmPart>
  readonly display: Display
  readonly resultFilePaths?: ReadonlyArray<string> | undefined
  readonly data: A
  /** The rest of the output, still arriving. */
  readonly stream?: ToolOutputStream | undefined
}

/** A text part. @category constructors */
export const text = (value: string): TextPart => ({ type: "text", text: value })

/** A result whose model-facing content is one text part. @category constructors */
export const textResult = <A = void>(
  llmText: string,
  options: { readonly display?: Display; readonly data?: A; readonly resultFilePaths?: ReadonlyArray<string> } = {}
): ToolResult<A> => ({
  llmContent: [text(llmText)],
  display: options.display ?? llmText,
  data: options.data as A,
  ...(options.resultFilePaths ? { resultFilePaths: options.resultFilePaths } : {})
})

/** The text parts of a result joined by newlines. @category getters */
export const llmText = (parts: ReadonlyArray<LlmPart>): string =>
  parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n")

/**
 * A result whose model-facing content is `stream` (for example text chunks of a long output).
 * `display` defaults to the empty string: doors show what the pipeline made of the stream.
 *
 * @category constructors
 */
export const streamResult = <A = void>(
  stream: ToolOutputStream,
  options: { readonly display?: Display; readonly data?: A; readonly resultFilePaths?: ReadonlyArray<string> } = {}
): ToolResult<A> => ({
  llmContent: [],
  stream,
  display: options.display ?? "",
  data: options.data as A,
  ...(options.resultFilePaths ? { resultFilePaths: options.resultFilePaths } : {})
})

/** Chunk size of {@link textChunks}: 16 Ki chars. @category constants */
export const TEXT_CHUNK_CHARS = 16 * 1024

/**
 * A text as a stream of text parts of at most `chunkChars` chars (at least 2), never splitting a
 * surrogate pair: what a producer holding a finished text hands to the output pipeline.
 *
 * @category constructors
 */
export const textChunks = (value: string, chunkChars = TEXT_CHUNK_CHARS): Stream.Stream<TextPart> =>
  Stream.fromIterable((function*(): Generator<TextPart> {
    const size = Math.max(2, chunkChars)
    for (let at = 0; at < value.length;) {
      let end = Math.min(at + size, value.length)
      const last = value.charCodeAt(end - 1)
      if (end < value.length && last >= 0xd800 && last <= 0xdbff) end-- // a high surrogate waits for its pair
      yield text(value.slice(at, end))
      at = end
    }
  })())

/**
 * Every part of a result as one stream: a finished result is lifted into a stream of its parts,
 * a streamed one is its first parts followed by its stream.
 *
 * @category getters
 */
export const outputStreamOf = (result: Pick<ToolResult, "llmContent" | "stream">): ToolOutputStream => {
  const first: ToolOutputStream = Stream.fromIterable(result.llmContent)
  return result.stream === undefined ? first : Stream.concat(first, result.stream)
}
