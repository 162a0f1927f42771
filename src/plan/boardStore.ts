/**
 * The durable task board of a workspace: `<stateDir>/tasks/board.json`, shared by every session
 * and process on that workspace. Reads take a consistent snapshot (the file is only ever replaced
 * by rename); every change is a read-modify-write under a cross-process lock
 * (`<stateDir>/tasks/board.lock`) ending in an atomic write, so concurrent sessions never lose an
 * update or tear the file. A board file that does not decode is never overwritten.
 *
 * @since 0.1.0
 */
import * as nodePath from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { type DiskError, describeDiskError, ifExists, readText, writeFileAtomic } from "../disk/index.js"
import type { WorkspaceService } from "../session/index.js"
import {
  ExecutionFailed,
  type FileWriteFailure,
  type NoSpaceLeft,
  type PermissionDenied,
  ReadContentFailure,
  type TaskStoreUnavailable,
  readRefusal,
  writeFailureWith
} from "../tool/index.js"
import { Board, emptyBoard } from "./board.js"
import { type LockOptions, LockTimeout, PLAN_FILE_MODE, withFileLock } from "./lock.js"

/** The board file's name in `<stateDir>/tasks`. @category constants */
export const BOARD_FILE = "board.json"

/** The lock file's name in `<stateDir>/tasks`. @category constants */
export const BOARD_LOCK_FILE = "board.lock"

/** Why the board could not be read or written. @category errors */
export type BoardError = ReadContentFailure | ExecutionFailed | PermissionDenied | NoSpaceLeft | FileWriteFailure | TaskStoreUnavailable

/** A change: the value to return and the new board, or undefined to leave the board as it is. @category models */
export interface BoardChange<A> {
  readonly value: A
  readonly board: Board | undefined
}

/** The task board of one workspace. @category models */
export interface TaskBoardStore {
  /** Where the board lives. */
  readonly file: string
  /** A snapshot (empty when there is no board yet). */
  readonly read: Effect.Effect<Board, BoardError>
  /** Applies `change` under the lock; a refusal (`Result.fail`) leaves the board untouched. */
  readonly modify: <A, E>(change: (board: Board) => Result.Result<BoardChange<A>, E>) => Effect.Effect<A, E | BoardError>
}

const decodeBoard = Schema.decodeUnknownEffect(Schema.fromJsonString(Board))

const lockTimeoutError = (error: LockTimeout): ExecutionFailed => {
  const who = error.holder
    ? `process ${error.holder.pid} on ${error.holder.host}, since ${new Date(error.holder.since).toISOString()}`
    : "another process"
  return new ExecutionFailed({
    message: `The task board is busy: another session (${who}) held its lock for the whole ${Math.round(error.waitedMs)} ms ` +
      `this call waited. Nothing was changed. Try the call again; if this keeps happening, tell the user that ${error.path} ` +
      `may be left over from a crashed process.`,
    display: "Task board is locked by another session."
  })
}

/**
 * The board of the workspace's state directory. The directory is created on the first change.
 *
 * @category constructors
 */
export const makeTaskBoardStore = (workspace: WorkspaceService, lockOptions: LockOptions = {}): TaskBoardStore => {
  const dir = nodePath.join(workspace.stateDir, "tasks")
  const file = nodePath.join(dir, BOARD_FILE)

  const readFrom = Effect.fnUntraced(function*(path: string) {
    const text = yield* ifExists(readText(path)).pipe(
      Effect.mapError((error) =>
        readRefusal(error, path) ?? new ReadContentFailure({
          message: `Cannot read the task board ${path} (${describeDiskError(error)}). Tell the user; nothing was changed.`,
          display: `Cannot read ${path}`
        })
      )
    )
    if (text === undefined) return emptyBoard
    return yield* decodeBoard(text).pipe(
      Effect.mapError((error) =>
        new ReadContentFailure({
          message: `The task board ${path} is not a valid task board (${error.message.split("\n")[0]}). It was not ` +
            `changed. Tell the user: they can fix the file or move it aside to start a new board.`,
          display: `Invalid task board ${path}`
        })
      )
    )
  })

  const modify = <A, E>(change: (board: Board) => Result.Result<BoardChange<A>, E>): Effect.Effect<A, E | BoardError> =>
    Effect.gen(function*() {
      const created = yield* workspace.ensureStateSubdir("tasks")
      const path = nodePath.join(created, BOARD_FILE)
      const locked = Effect.gen(function*() {
        const outcome = change(yield* readFrom(path))
        if (Result.isFailure(outcome)) return Result.fail(outcome.failure)
        const next = outcome.success.board
        if (next !== undefined) {
          yield* writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`, PLAN_FILE_MODE).pipe(
            Effect.mapError((error: DiskError) =>
              writeFailureWith(error, {
                message: `Cannot write the task board ${path} (${describeDiskError(error)}); the change was not saved.`,
                display: `Cannot write ${path}`
              })
            )
          )
        }
        return Result.succeed(outcome.success.value)
      })
      return yield* withFileLock(nodePath.join(created, BOARD_LOCK_FILE), locked, lockOptions).pipe(
        Effect.catchTag("LockTimeout", (error) => Effect.fail(lockTimeoutError(error))),
        Effect.catchTag("DiskError", (error) =>
          Effect.fail(writeFailureWith(error, {
            message: `Cannot lock the task board (${describeDiskError(error)}); nothing was changed.`,
            display: "Cannot lock the task board"
          })))
      ).pipe(Effect.flatMap((result) => (Result.isFailure(result) ? Effect.fail(result.failure) : Effect.succeed(result.success))))
    })

  return { file, read: readFrom(file), modify }
}

/**
 * Where a session's task tools keep the board: unset, the workspace's board file; set, this
 * function's store (a session kept in SQL sets it to the SQL board of its workspace).
 * @category services
 */
export const TaskBoardSource = Context.Reference<((workspace: WorkspaceService) => TaskBoardStore) | undefined>(
  "toolwright/plan/TaskBoardSource",
  { defaultValue: () => undefined }
)

/** The task board of the session's workspace, from {@link TaskBoardSource}. @category constructors */
export const taskBoardStoreFor = (workspace: WorkspaceService): Effect.Effect<TaskBoardStore> =>
  Effect.gen(function*() {
    const source = yield* TaskBoardSource
    return source === undefined ? makeTaskBoardStore(workspace) : source(workspace)
  })
