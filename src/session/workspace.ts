/**
 * The workspace boundary: which paths a tool may touch.
 *
 * Roots are canonicalized with `realpath` when the layer is built. Every path a tool receives goes
 * through {@link WorkspaceService.resolve}, which follows symlinks (of the file and of every parent
 * directory, dangling ones included) and, for a path that does not exist yet, checks the real path
 * of its nearest existing ancestor. Containment is a path-segment comparison, so `/root-evil` is
 * never inside `/root`.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import {
  type FileWriteFailure,
  InvalidToolParams,
  isMissing,
  type NoSpaceLeft,
  PathNotInWorkspace,
  type PermissionDenied,
  readRefusal
} from "../tool/index.js"
import { lstat, realpath, stat } from "../disk/index.js"
import { isPathInside, resolveRealPath } from "./realPath.js"
import { ensureStateSubdir, resolveStateDir, type StateSubdir } from "./stateDir.js"

/** Options of {@link Workspace.layer}. @category models */
export interface WorkspaceOptions {
  /** Workspace roots; the first is the primary root that relative paths resolve against. */
  readonly roots: ReadonlyArray<string>
  /** State directory; wins over `TOOLWRIGHT_STATE_DIR` and the default. */
  readonly stateDir?: string
  /** Directories readable (not writable) through `resolveReadable`, e.g. the session output dir. */
  readonly extraReadableDirs?: ReadonlyArray<string>
}

/** The workspace could not be set up (a root is missing or not a directory, or config failed). @category errors */
export class WorkspaceInitError extends Schema.TaggedError<WorkspaceInitError>()("WorkspaceInitError", {
  message: Schema.String
}) {}

/** The operations of the {@link Workspace} service. @category models */
export interface WorkspaceService {
  /** Real paths of the roots, in the order given (duplicates removed). */
  readonly roots: ReadonlyArray<string>
  /** The first root: relative paths resolve against it. */
  readonly primaryRoot: string
  /** Real paths of the extra readable directories. */
  readonly extraReadableDirs: ReadonlyArray<string>
  /** Absolute state directory of this project (not created until {@link ensureStateSubdir}). */
  readonly stateDir: string
  /** Absolute path for `path` (absolute, or relative to the primary root) if it stays inside a root. */
  readonly resolve: (path: string) => Effect.Effect<string, PathNotInWorkspace | PermissionDenied | InvalidToolParams>
  /** Like `resolve`, but the extra readable directories are admitted too. */
  readonly resolveReadable: (path: string) => Effect.Effect<string, PathNotInWorkspace | PermissionDenied | InvalidToolParams>
  /**
   * `resolve` (`readable`: `resolveReadable`) with the call's location too: the real path with a
   * final link followed, as `realLocation` of the answer would give, from the same resolution (no
   * second `realpath`).
   */
  readonly resolveLocated: (
    path: string,
    options?: { readonly readable?: boolean }
  ) => Effect.Effect<{ readonly path: string; readonly location: string }, PathNotInWorkspace | PermissionDenied | InvalidToolParams>
  /** Whether `absPath` really (symlinks followed) lies inside a root; never fails. */
  readonly isWithin: (absPath: string) => Effect.Effect<boolean>
  /** Creates `<stateDir>/<name>` with mode 0700 if missing and returns its path. */
  readonly ensureStateSubdir: (
    name: StateSubdir
  ) => Effect.Effect<string, PermissionDenied | NoSpaceLeft | FileWriteFailure>
}

/** The workspace boundary of one session. @category services */
export class Workspace extends Context.Service<Workspace, WorkspaceService>()("toolwright/session/Workspace") {
  /** Builds the workspace; fails with {@link WorkspaceInitError} if a root is missing or not a directory. */
  static readonly layer = (options: WorkspaceOptions): Layer.Layer<Workspace, WorkspaceInitError> =>
    Layer.effect(Workspace, makeWorkspace(options))
}

const realRoot = Effect.fnUntraced(function*(root: string) {
  const abs = path.resolve(root)
  const real = yield* realpath(abs).pipe(Effect.mapError((e) =>
    new WorkspaceInitError({
      message: e.code === "ENOENT"
        ? `Workspace root ${root} does not exist.`
        : `Workspace root ${root} cannot be resolved (${e.code ?? "unknown error"}).`
    })
  ))
  const stats = yield* stat(real).pipe(Effect.mapError((e) =>
    new WorkspaceInitError({ message: `Workspace root ${root} cannot be inspected (${e.code ?? "unknown error"}).` })
  ))
  if (!stats.isDirectory()) return yield* new WorkspaceInitError({ message: `Workspace root ${root} is not a directory.` })
  return real
})

const checkInput = (input: string): Effect.Effect<void, InvalidToolParams> => {
  if (typeof input !== "string" || input.trim() === "") {
    return Effect.fail(new InvalidToolParams({ message: "The path must be a non-empty string.", display: "Empty path." }))
  }
  if (input.includes("\0")) {
    return Effect.fail(new InvalidToolParams({
      message: `The path ${JSON.stringify(input)} contains a null byte, which no file path may contain. Pass the path without it.`,
      display: "Path contains a null byte."
    }))
  }
  return Effect.void
}

/** Builds the {@link WorkspaceService} for `options` (what {@link Workspace.layer} runs). @category constructors */
export const makeWorkspace: (options: WorkspaceOptions) => Effect.Effect<WorkspaceService, WorkspaceInitError> = Effect
  .fnUntraced(function*(options: WorkspaceOptions) {
    if (options.roots.length === 0) {
      return yield* new WorkspaceInitError({ message: "No workspace root was given; at least one directory is required." })
    }
    const roots = [...new Set(yield* Effect.forEach(options.roots, realRoot))]
    const primaryRoot = roots[0] ?? ""
    const extraReadableDirs = yield* Effect.forEach(options.extraReadableDirs ?? [], (dir) =>
      resolveRealPath(path.resolve(dir)).pipe(Effect.mapError((e) =>
        new WorkspaceInitError({ message: `Readable directory ${dir} cannot be resolved (${e.code ?? "unknown error"}).` })
      )))
    const stateDir = yield* resolveStateDir(primaryRoot, options.stateDir).pipe(
      Effect.mapError((e) => new WorkspaceInitError({ message: `State directory configuration is invalid: ${e.message}` }))
    )
    const readable = [...roots, ...extraReadableDirs]

    const outside = (input: string, abs: string, real: string, allowed: ReadonlyArray<string>) => {
      const viaLink = real !== abs && allowed.some((dir) => isPathInside(abs, dir))
      const where = viaLink ? `resolves through a symbolic link to ${real}` : `resolves to ${real}`
      const extra = allowed.length > roots.length
        ? ` Readable directories outside the workspace: ${extraReadableDirs.join(", ")}.`
        : ""
      return new PathNotInWorkspace({
        message: `Path ${input} is outside the workspace: it ${where}, which is not inside any workspace root. ` +
          `Workspace roots: ${roots.join(", ")}.${extra} Use a path inside one of these roots (relative paths ` +
          `are resolved against ${primaryRoot}); to work on files elsewhere, ask the user to add that directory ` +
          `as a workspace root.`,
        display: `Path is outside the workspace: ${input}`
      })
    }

    /**
     * One resolution, checked and returned: the parent directory's real path, then the final
     * component — followed if it is a link, for the check. The answer is that real path, or the
     * link itself (as named, in its real parent) when the link lies inside the allowed dirs, so
     * callers see a symlinked file as the link. Never a second resolution that could differ.
     */
    const locate = Effect.fnUntraced(function*(abs: string) {
      const parent = path.dirname(abs)
      if (parent === abs) {
        const real = yield* resolveRealPath(abs)
        return { real, named: real }
      }
      const named = path.join(yield* resolveRealPath(parent), path.basename(abs))
      const final = yield* Effect.result(lstat(named))
      if (Result.isFailure(final)) {
        if (isMissing(final.failure)) return { real: named, named }
        return yield* final.failure
      }
      return { real: final.success.isSymbolicLink() ? yield* resolveRealPath(named) : named, named }
    })

    const resolveIn = Effect.fnUntraced(function*(input: string, allowed: ReadonlyArray<string>) {
      yield* checkInput(input)
      const abs = path.resolve(primaryRoot, input)
      const located = yield* Effect.result(locate(abs))
      if (Result.isFailure(located)) {
        const refused = readRefusal(located.failure.code, abs, "checking file")
        if (refused !== undefined) return yield* refused
        return yield* new PathNotInWorkspace({
          message: `Path ${input} could not be verified to be inside the workspace: resolving ${abs} failed ` +
            `(${located.failure.code ?? "unknown error"}, e.g. a symbolic-link loop or an unreadable directory). ` +
            `Workspace roots: ${roots.join(", ")}. Use a path inside one of these roots that resolves cleanly.`,
          display: `Cannot verify path: ${input}`
        })
      }
      const { named, real } = located.success
      if (!allowed.some((dir) => isPathInside(real, dir))) {
        return yield* outside(input, abs, real, allowed)
      }
      return { path: allowed.some((dir) => isPathInside(named, dir)) ? named : real, location: real }
    })

    const resolve = Effect.fn("Workspace.resolve")(function*(input: string) {
      return (yield* resolveIn(input, roots)).path
    })
    const resolveReadable = Effect.fn("Workspace.resolveReadable")(function*(input: string) {
      return (yield* resolveIn(input, readable)).path
    })
    const resolveLocated = Effect.fn("Workspace.resolveLocated")(function*(input: string, options: { readonly readable?: boolean } = {}) {
      return yield* resolveIn(input, options.readable === true ? readable : roots)
    })
    const isWithin = Effect.fn("Workspace.isWithin")(function*(absPath: string) {
      const real = yield* Effect.result(resolveRealPath(path.resolve(primaryRoot, absPath)))
      return Result.isSuccess(real) && roots.some((dir) => isPathInside(real.success, dir))
    })
    const ensure = Effect.fn("Workspace.ensureStateSubdir")(function*(name: StateSubdir) {
      return yield* ensureStateSubdir(stateDir, name)
    })

    return Workspace.of({
      roots,
      primaryRoot,
      extraReadableDirs,
      stateDir,
      resolve,
      resolveReadable,
      resolveLocated,
      isWithin,
      ensureStateSubdir: ensure
    })
  })
