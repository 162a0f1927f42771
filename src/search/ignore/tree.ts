/**
 * Which paths below a search root are hidden by `.gitignore`, `.toolwrightignore` and the
 * default excludes — one implementation shared by the JS walker, the glob walk and the
 * post-filter every external grep backend goes through.
 *
 * **Rules**
 * - `.gitignore` files apply inside a git work tree only (a directory with a `.git` entry and
 *   everything below it), from the work-tree top down, plus `.git/info/exclude`; the global
 *   `core.excludesFile` is not read. A nested repository keeps its parents' rules and adds its
 *   own `info/exclude`. The deepest matching rule wins; a path inside an ignored directory is
 *   ignored.
 * - `.toolwrightignore` files use the same syntax and apply from the ignore base down: the
 *   workspace root when given, else the work-tree top, else the search root. They apply
 *   independently of the git rules (a path hidden by either is hidden).
 * - The search root itself is never hidden by git rules (as ripgrep searches an explicitly
 *   named ignored directory), but a root inside a toolwright-ignored directory shows nothing.
 *
 * The tree caches directory states per call; create one per search.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { DEFAULT_EXCLUDED_NAMES, GIT_IGNORE_FILE, TOOLWRIGHT_IGNORE_FILE } from "../constants.js"
import { type IgnoreRule, parseIgnoreFile } from "./patterns.js"

/** Which ignore files a search respects. @category models */
export interface IgnoreOptions {
  readonly gitignore: boolean
  readonly toolwrightIgnore: boolean
  /** The workspace root whose `.toolwrightignore` applies to searches below it. */
  readonly workspaceRoot?: string
}

/** Why a path is hidden. @category models */
export type ExclusionReason = "default" | "git" | "toolwright"

/** The rules of one ignore file, relative to its directory. @category models */
export interface RuleSet {
  readonly base: string
  readonly rules: ReadonlyArray<IgnoreRule>
}

/** The rules in force for the entries of one directory. @category models */
export interface DirState {
  readonly dir: string
  readonly git: ReadonlyArray<RuleSet> | undefined
  readonly gitExtra: ReadonlyArray<RuleSet>
  readonly tw: ReadonlyArray<RuleSet>
}

/** Per-search view of the ignore rules below a root. @category models */
export interface IgnoreTree {
  /** The directory the walk starts in (a file root's parent). */
  readonly root: string
  /** True when the root lies inside a git work tree. */
  readonly insideWorkTree: boolean
  /** True when the root (or a directory above it, below the work-tree top) is git-ignored. */
  readonly rootGitIgnored: boolean
  /** True when the root lies in a toolwright-ignored directory: nothing below it is visible. */
  readonly rootHidden: boolean
  /** The rules for the entries of `dir` (`names`: its entries, when already read, to skip lookups). */
  readonly stateOf: (dir: string, names?: ReadonlySet<string>) => Promise<DirState>
  /** Why the entry `name` of the directory with state `parent` is hidden, if it is. */
  readonly classify: (parent: DirState, name: string, isDir: boolean) => ExclusionReason | undefined
  /** Why a path relative to the root is hidden (checking every directory on the way), if it is. */
  readonly reasonFor: (relPath: string, isDir: boolean) => Promise<ExclusionReason | undefined>
}

/** True when `child` is `parent` or below it. @category paths */
export const isWithin = (child: string, parent: string): boolean =>
  child === parent || child.startsWith(parent === "/" ? "/" : `${parent}/`)

const relativeTo = (base: string, abs: string): string => (base === "/" ? abs.slice(1) : abs.slice(base.length + 1))

/** The last rule of the chain matching `abs` decides: true = ignored, false = re-included. @category matching */
export const chainDecision = (chain: ReadonlyArray<RuleSet>, abs: string, isDir: boolean): boolean | undefined => {
  for (let i = chain.length - 1; i >= 0; i--) {
    const set = chain[i]!
    const rel = relativeTo(set.base, abs)
    for (let j = set.rules.length - 1; j >= 0; j--) {
      const rule = set.rules[j]!
      if ((!rule.dirOnly || isDir) && rule.regex.test(rel)) return !rule.negated
    }
  }
  return undefined
}

const readText = (file: string): Promise<string | undefined> => fs.readFile(file, "utf8").catch(() => undefined)
const exists = (file: string): Promise<boolean> => fs.lstat(file).then(() => true, () => false)
const rulesAt = (base: string, text: string | undefined): ReadonlyArray<RuleSet> =>
  text === undefined ? [] : [{ base, rules: parseIgnoreFile(text) }]

/** Nearest directory at or above `dir` holding a `.git` entry. */
const findWorkTreeTop = async (dir: string): Promise<string | undefined> => {
  for (let current = dir; ; current = path.dirname(current)) {
    if (await exists(path.join(current, ".git"))) return current
    if (path.dirname(current) === current) return undefined
  }
}

/** Builds the ignore view of a search rooted at the directory `root`. @category constructors */
export const makeIgnoreTree = async (
  root: string,
  options: IgnoreOptions,
  settings: { readonly defaultExcludes: boolean } = { defaultExcludes: true }
): Promise<IgnoreTree> => {
  const top = options.gitignore || options.toolwrightIgnore ? await findWorkTreeTop(root) : undefined
  const twBase = options.workspaceRoot !== undefined && isWithin(root, options.workspaceRoot)
    ? options.workspaceRoot
    : top ?? root
  const cache = new Map<string, Promise<DirState>>()

  const compute = async (dir: string, parent: DirState | undefined, names?: ReadonlySet<string>): Promise<DirState> => {
    const has = (name: string) => names === undefined || names.has(name)
    const hasGit = options.gitignore && (names === undefined ? await exists(path.join(dir, ".git")) : names.has(".git"))
    const active = parent?.git !== undefined || hasGit
    const gitignore = active && has(GIT_IGNORE_FILE) ? await readText(path.join(dir, GIT_IGNORE_FILE)) : undefined
    const exclude = hasGit ? await readText(path.join(dir, ".git", "info", "exclude")) : undefined
    const twText = options.toolwrightIgnore && isWithin(dir, twBase) && has(TOOLWRIGHT_IGNORE_FILE)
      ? await readText(path.join(dir, TOOLWRIGHT_IGNORE_FILE))
      : undefined
    const tw = [...(parent?.tw ?? []), ...rulesAt(dir, twText)]
    if (parent?.git !== undefined) {
      return { dir, git: [...parent.git, ...rulesAt(dir, gitignore)], gitExtra: [...parent.gitExtra, ...rulesAt(dir, exclude)], tw }
    }
    if (hasGit) return { dir, git: [...rulesAt(dir, exclude), ...rulesAt(dir, gitignore)], gitExtra: [], tw }
    return { dir, git: undefined, gitExtra: [], tw }
  }

  const classify = (parent: DirState, name: string, isDir: boolean): ExclusionReason | undefined => {
    if (settings.defaultExcludes && DEFAULT_EXCLUDED_NAMES.has(name)) return "default"
    const abs = path.join(parent.dir, name)
    if (parent.git !== undefined) {
      if (chainDecision(parent.git, abs, isDir) === true) return "git"
      if (parent.gitExtra.some((set) => chainDecision([set], abs, isDir) === true)) return "git"
    }
    if (chainDecision(parent.tw, abs, isDir) === true) return "toolwright"
    return undefined
  }

  const start = top !== undefined && isWithin(twBase, top) ? top : twBase
  const chainDirs: Array<string> = []
  for (let d = root; ; d = path.dirname(d)) {
    chainDirs.unshift(d)
    if (d === start || path.dirname(d) === d) break
  }
  let state: DirState | undefined
  let rootGitIgnored = false
  let rootHidden = false
  for (const dir of chainDirs) {
    if (state !== undefined) {
      const reason = classify(state, path.basename(dir), true)
      if (reason === "git") rootGitIgnored = true
      if (reason === "toolwright") rootHidden = true
    }
    const promise = compute(dir, state)
    cache.set(dir, promise)
    state = await promise
  }
  const rootState = state!
  const empty = (dir: string): DirState => ({ dir, git: undefined, gitExtra: [], tw: [] })

  const stateOf = (dir: string, names?: ReadonlySet<string>): Promise<DirState> => {
    const cached = cache.get(dir)
    if (cached !== undefined) return cached
    if (!isWithin(dir, root)) return Promise.resolve(empty(dir))
    const promise = stateOf(path.dirname(dir)).then((parent) => compute(dir, parent, names))
    cache.set(dir, promise)
    return promise
  }

  const reasonFor = async (relPath: string, isDir: boolean): Promise<ExclusionReason | undefined> => {
    if (rootHidden) return "toolwright"
    const parts = relPath.split("/")
    let current = rootState
    for (let i = 0; i < parts.length; i++) {
      const last = i === parts.length - 1
      const reason = classify(current, parts[i]!, last ? isDir : true)
      if (reason !== undefined) return reason
      if (!last) current = await stateOf(path.join(current.dir, parts[i]!))
    }
    return undefined
  }

  return { root, insideWorkTree: top !== undefined, rootGitIgnored, rootHidden, stateOf, classify, reasonFor }
}
