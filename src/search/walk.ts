/**
 * The JS directory walk: breadth-first, bounded concurrency, pruning ignored directories as it
 * goes (the same {@link IgnoreTree} rules the other backends are filtered with). Symbolic
 * links are neither followed nor reported.
 *
 * @since 0.1.0
 */
import type { Dirent } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { type PathGlob, pathGlobAllows } from "./ignore/patterns.js"
import { type IgnoreTree, ruleFileNames } from "./ignore/tree.js"

interface Level {
  readonly abs: string
  readonly rel: string
}

type Kind = "file" | "dir" | "other"

const kindOf = async (entry: Dirent, abs: string): Promise<Kind> => {
  if (entry.isFile()) return "file"
  if (entry.isDirectory()) return "dir"
  if (entry.isSymbolicLink() || entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()) {
    return "other"
  }
  const stat = await fs.lstat(abs).catch(() => undefined)
  return stat?.isFile() === true ? "file" : stat?.isDirectory() === true ? "dir" : "other"
}

/** Reads one directory: its visible files and the subdirectories to descend into. */
const readLevel = async (
  tree: IgnoreTree,
  glob: PathGlob | undefined,
  level: Level
): Promise<{ readonly files: ReadonlyArray<string>; readonly dirs: ReadonlyArray<Level> }> => {
  const entries = await fs.readdir(level.abs, { withFileTypes: true }).catch(() => [] as Array<Dirent>)
  const state = tree.stateOf(level.abs, ruleFileNames(entries))
  const files: Array<string> = []
  const dirs: Array<Level> = []
  for (const entry of entries) {
    const abs = path.join(level.abs, entry.name)
    const kind = await kindOf(entry, abs)
    if (kind === "other" || tree.classify(state, entry.name, kind === "dir") !== undefined) continue
    const rel = level.rel === "" ? entry.name : `${level.rel}/${entry.name}`
    if (kind === "dir") {
      if (glob === undefined || pathGlobAllows(glob, rel, true)) dirs.push({ abs, rel })
    } else if (glob === undefined || pathGlobAllows(glob, rel, false)) {
      files.push(rel)
    }
  }
  return { files, dirs }
}

/** Lists the visible regular files below the tree's root (paths relative to it, unordered). @category walking */
export const walkFiles = Effect.fn("search.walk")(function*(tree: IgnoreTree, glob: PathGlob | undefined) {
  if (tree.rootHidden) return [] as ReadonlyArray<string>
  const files: Array<string> = []
  let frontier: ReadonlyArray<Level> = [{ abs: tree.root, rel: "" }]
  while (frontier.length > 0) {
    const levels = yield* Effect.forEach(frontier, (level) => Effect.promise(() => readLevel(tree, glob, level)), {
      concurrency: 16
    })
    for (const level of levels) files.push(...level.files)
    frontier = levels.flatMap((level) => level.dirs)
  }
  return files as ReadonlyArray<string>
})
