/**
 * Locations: the real paths a call will read or write, as the policy, the approval prompt, the
 * hooks and the batch's touched paths see them. A tool resolves what the model wrote once (shell
 * escapes, `~`, relative to the first root, through the workspace boundary) and states where that
 * lands with {@link realLocation}; nothing resolves the raw params a second time.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { type InvalidToolParams, PathNotInWorkspace, type PermissionDenied } from "../tool/index.js"
import { resolveRealPath } from "./realPath.js"
import type { WorkspaceService } from "./workspace.js"

/**
 * The real path of `abs`, a path the workspace already resolved: a symlink's final component is
 * followed too, so a rule decides on the file that will be touched, not on the name of a link to it.
 * Fails with `path_not_in_workspace` when the path no longer resolves (a loop planted since).
 * @category paths
 */
export const realLocation = (abs: string): Effect.Effect<string, PathNotInWorkspace> =>
  resolveRealPath(abs).pipe(Effect.mapError((e) =>
    new PathNotInWorkspace({
      message: `Path ${abs} could not be resolved to the file it names (${e.code ?? "unknown error"}, e.g. a ` +
        `symbolic-link loop). Use a path that resolves cleanly inside the workspace.`,
      display: `Cannot resolve path: ${abs}`
    })
  ))

/** The real paths of `paths`, in order, duplicates dropped. @category paths */
export const realLocations = (paths: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>, PathNotInWorkspace> =>
  Effect.map(Effect.forEach(paths, realLocation), (all) => [...new Set(all)])

/**
 * Resolves a path as the model wrote it, the workspace's way (relative to the first root, inside a
 * root or a readable directory), to its real path: the locations of a tool that declares path
 * params but reports none (see `Tool.build`).
 * @category paths
 */
export const locateParam = (workspace: WorkspaceService) => (input: string): Effect.Effect<string, PathNotInWorkspace | PermissionDenied | InvalidToolParams> =>
  Effect.flatMap(workspace.resolveReadable(input), realLocation)

/**
 * {@link locateParam} for a path a call will write: inside a workspace root only (the read-only
 * directories are refused).
 * @category paths
 */
export const locateWritableParam = (workspace: WorkspaceService) => (input: string): Effect.Effect<string, PathNotInWorkspace | PermissionDenied | InvalidToolParams> =>
  Effect.flatMap(workspace.resolve(input), realLocation)
