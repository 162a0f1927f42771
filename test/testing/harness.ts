/**
 * Runs generated edit cases through the real `edit` tool (a real temp workspace, a prior read,
 * the file's bytes written and read back) and turns what happened into a {@link ToolOutcome}.
 */
import * as fs from "node:fs"
import { Effect } from "effect"
import { applied, beforeBytes, type EditCase, refused, type ToolOutcome } from "../../src/testing/index.js"
import { fileWorld } from "../files/helpers.js"
import { decodeText, encodeText, resolveEdit, toLf } from "../../src/text/index.js"

type World = Effect.Success<ReturnType<typeof fileWorld>>

/** One case through `edit`: the file's bytes after a success, or a refusal when it failed and left the bytes alone. */
export const landWithEdit = (w: World, c: EditCase, name = "case.txt") =>
  Effect.gen(function*() {
    const file = w.file(name, beforeBytes(c))
    yield* w.read.call({ file_path: file })
    const result = yield* Effect.exit(w.edit.call({ file_path: file, ...c.request }))
    const after = new Uint8Array(fs.readFileSync(file))
    fs.rmSync(file)
    const unchanged = Buffer.from(after).equals(Buffer.from(beforeBytes(c)))
    return result._tag === "Failure" && unchanged ? refused() : applied(after)
  })

/** A scoped world for running many cases. */
export const withWorld = <A>(f: (w: World) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const w = yield* fileWorld()
    return yield* f(w)
  })) as Effect.Effect<A>)

/**
 * One case through the edit tool's text pipeline without the disk: the bytes decoded as `edit`
 * decodes them, old_string and new_string given LF line breaks for a CRLF file, the matching
 * ladder, and the result encoded back in the file's format. Fast enough for 10,000 cases a family.
 */
export const landWithLadder = (c: EditCase): ToolOutcome => {
  const bytes = beforeBytes(c)
  const { format, text } = decodeText(bytes)
  const crlf = format.lineEnding === "crlf"
  const oldString = crlf ? toLf(c.request.old_string) : c.request.old_string
  const newString = crlf ? toLf(c.request.new_string) : c.request.new_string
  const resolved = resolveEdit(text, oldString, newString, { replaceAll: c.request.replace_all ?? false })
  if (resolved._tag !== "Match") return refused(resolved._tag)
  if (resolved.oldString === resolved.newString || resolved.newContent === text) return refused("no change")
  return applied(encodeText(resolved.newContent, format))
}
