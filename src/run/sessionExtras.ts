/**
 * What a named session's record keeps besides read evidence, restored when the session starts
 * and captured when it closes (`namedSessionLayer`'s extras): tools revealed by `tool_search`,
 * reminders still waiting for the model, and the index of its saved outputs. The todo list has
 * its own store (`todo_write`'s, under the state directory or in SQL); a resumed session with
 * unfinished todos is shown the list once.
 *
 * @since 0.2.0
 */
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import { stat } from "../disk/index.js"
import { OutputStore, type PersistedOutput } from "../output/index.js"
// floors: start-up — the todo list's texts, not the plan room's tools (its store loads on resume)
import { hasUnfinished, TODOS_RESUMED, todosResumedText } from "../plan/todos.js"
import { Registry } from "../registry/index.js"
import { Session, SessionEvents, type SessionExtras, type SessionRecord, type StoredOutput, Workspace } from "../session/index.js"

/** A stored path that stays under the state directory: relative, no `..`, no empty part. */
const safeRelative = (rel: string) =>
  rel !== "" && !nodePath.isAbsolute(rel) && !rel.split("/").some((part) => part === ".." || part === "" || part === ".")

/**
 * The record's saved outputs taken back into the session's output store (those whose file is
 * still in its directory with the recorded size); how many were taken.
 * @category restore
 */
export const restoreOutputs = (
  record: SessionRecord,
  stateDir: string,
  store: OutputStore["Service"]
): Effect.Effect<number> => {
  const outputs = (record.outputs ?? []).flatMap((o): Array<PersistedOutput> =>
    safeRelative(o.path)
      ? [{ id: o.id, path: nodePath.join(stateDir, ...o.path.split("/")), toolName: o.tool, bytes: o.bytes, sha256: o.sha256, lines: o.lines }]
      : []
  )
  return outputs.length === 0 ? Effect.succeed(0) : Effect.map(store.adopt(outputs), (taken) => taken.length)
}

/**
 * The output store's index in portable form: each saved output whose file is still there, its
 * path relative to the state directory and its file's time as `createdAt`.
 * @category capture
 */
export const captureOutputs = (stateDir: string, store: OutputStore["Service"]): Effect.Effect<ReadonlyArray<StoredOutput>> =>
  Effect.gen(function*() {
    const kept: Array<StoredOutput> = []
    for (const entry of yield* store.list) {
      const rel = nodePath.relative(stateDir, entry.path).split(nodePath.sep).join("/")
      if (!safeRelative(rel)) continue
      const info = yield* Effect.option(stat(entry.path))
      if (info._tag === "None" || !info.value.isFile()) continue
      kept.push({
        id: entry.id,
        tool: entry.toolName,
        bytes: entry.bytes,
        sha256: entry.sha256,
        lines: entry.lines,
        path: rel,
        createdAt: Math.round(info.value.mtimeMs)
      })
    }
    return kept
  })

/** The extras of a session built by `SessionLayer.layer`. @category constructors */
export const sessionExtras: SessionExtras<Registry.ToolRegistry | SessionEvents | Session | Workspace | OutputStore> = {
  restore: (record) =>
    Effect.gen(function*() {
      const registry = yield* Registry.ToolRegistry
      const events = yield* SessionEvents
      const workspace = yield* Workspace
      // an MCP tool not registered yet when the session starts stays hidden
      if (record.revealed !== undefined && record.revealed.length > 0) {
        yield* registry.reveal(record.revealed).pipe(Effect.ignore)
      }
      // the todo reminder is not carried over: it is made again from the list as it is now
      const carried = (record.reminders ?? []).filter((text) => !text.startsWith(TODOS_RESUMED))
      for (const [i, text] of carried.entries()) yield* events.remind(`resumed-${i}`, text)
      yield* restoreOutputs(record, workspace.stateDir, yield* OutputStore)
      // loaded only here, when a session resumes: a new session's start loads no plan store
      const { todoStoreFor } = yield* Effect.promise(() => import("../plan/todoStore.js"))
      const todos = yield* (yield* todoStoreFor(workspace, (yield* Session).id)).read
      if (hasUnfinished(todos)) yield* events.remind("todos-resumed", todosResumedText(todos))
    }),
  capture: Effect.gen(function*() {
    const view = yield* (yield* Registry.ToolRegistry).deferredView
    const revealed = view.deferred.map((t) => t.name).filter((name) => !view.isHidden(name))
    const reminders = yield* (yield* SessionEvents).takeReminders
    const outputs = yield* captureOutputs((yield* Workspace).stateDir, yield* OutputStore)
    return { revealed, reminders, outputs }
  })
}
