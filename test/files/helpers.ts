/**
 * A real file-tool world for tests: a temp workspace root, a temp state dir, the session services,
 * and the four tools built over them.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Context, Effect, Layer } from "effect"
import { makeEdit } from "../../src/files/edit.js"
import { makeNotebookEdit } from "../../src/files/notebookEdit.js"
import { makeReadFile } from "../../src/files/readFile.js"
import { makeWriteFile } from "../../src/files/writeFile.js"
import { FileReadCache, type FileReadCacheOptions } from "../../src/session/readCache.js"
import { Session } from "../../src/session/session.js"
import { Workspace } from "../../src/session/workspace.js"
import { llmText, type ToolResult } from "../../src/tool/result.js"

/** A fresh temp directory (real path), removed when the scope closes. */
export const tempDir = (prefix = "tw-files-") =>
  Effect.acquireRelease(
    Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** The session services over `root` and `stateDir`. */
export const sessionContext = (root: string, stateDir: string, cache: FileReadCacheOptions = {}) =>
  Layer.build(Layer.mergeAll(
    Workspace.layer({ roots: [root], stateDir, extraReadableDirs: [path.join(stateDir, "outputs")] }),
    FileReadCache.layer(cache),
    Layer.succeed(Session, Session.of({ id: "session-test", startedAt: 0 }))
  ))

/** The four tools over a fresh temp workspace. */
export const fileWorld = (cache: FileReadCacheOptions = {}) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const state = yield* tempDir("tw-state-")
    fs.mkdirSync(path.join(state, "outputs"), { recursive: true })
    const context = yield* sessionContext(root, state, cache)
    const build = <A, E, R>(make: Effect.Effect<A, E, R>) => Effect.provide(make, context) as Effect.Effect<A, E>
    return {
      root,
      state,
      context,
      cache: Context.get(context, FileReadCache),
      read: yield* build(makeReadFile),
      edit: yield* build(makeEdit),
      write: yield* build(makeWriteFile),
      notebook: yield* build(makeNotebookEdit),
      /** Absolute path of `rel` in the root, its parent directories created, with `content` if given. */
      file: (rel: string, content?: string | Uint8Array) => {
        const abs = path.join(root, rel)
        if (content !== undefined) {
          fs.mkdirSync(path.dirname(abs), { recursive: true })
          fs.writeFileSync(abs, content)
        }
        return abs
      }
    }
  })

/** The text of a result. */
export const textOf = (result: ToolResult<unknown>): string => llmText(result.llmContent)

/** The bytes of a file. */
export const bytesOf = (file: string): Buffer => fs.readFileSync(file)

/** Pins a file's mtime to a fixed whole second, so a rewrite can keep "the same mtime" exactly. */
export const pinMtime = (file: string) => fs.utimesSync(file, 1_700_000_000, 1_700_000_000)
