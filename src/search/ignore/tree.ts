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
 * The tree caches directory states per call; create one per search. It is synchronous: a
 * directory's state costs a few `lstat`s (and a read per ignore file present), far cheaper than
 * a thread-pool round trip each.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { DEFAULT_EXCLUDED_NAMES, GIT_IGNORE_FILE, TOOLWRIGHT_IGNORE_FILE } from "../constants.js"
import type { SkippedIgnoreLineAt } from "../patternLimits.js"
import { type IgnoreRule, parseIgnoreFileReport } from "./patterns.js"

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

/** Per-search view of the ignore rules below a root (synchronous: each directory costs a few `lstat`s, no thread-pool round trip). @category models */
export interface IgnoreTree {
  /** The directory the walk starts in (a file root's parent). */
  readonly root: string
  /** True when the root lies inside a git work tree. */
  readonly insideWorkTree: boolean
  /** True when the root (or a directory above it, below the work-tree top) is git-ignored. */
  readonly rootGitIgnored: boolean
  /** True when the root lies in a toolwright-ignored directory: nothing below it is visible. */
  readonly rootHidden: boolean
  /** The rules for the entries of `dir` (`names`: its entries, or just {@link ruleFileNames} of them, when already read, to skip lookups). */
  readonly stateOf: (dir: string, names?: ReadonlySet<string>) => DirState
  /** Why the entry `name` of the directory with state `parent` is hidden, if it is. */
  readonly classify: (parent: DirState, name: string, isDir: boolean) => ExclusionReason | undefined
  /** Why a path relative to the root is hidden (checking every directory on the way), if it is. */
  readonly reasonFor: (relPath: string, isDir: boolean) => ExclusionReason | undefined
  /** Ignore-file lines read so far that could not compile (too large for the regex engine) and were skipped. */
  readonly skippedLines: () => ReadonlyArray<SkippedRuleLine>
}

/** An ignore-file line left out because it cannot compile. @category models */
export type SkippedRuleLine = SkippedIgnoreLineAt

/** True when `child` is `parent` or below it. @category paths */
export const isWithin = (child: string, parent: string): boolean =>
  child === parent || child.startsWith(parent === "/" ? "/" : `${parent}/`)

/** The entries whose presence changes a directory's rules. */
const RULE_FILES: ReadonlySet<string> = new Set([".git", GIT_IGNORE_FILE, TOOLWRIGHT_IGNORE_FILE])

const relativeTo = (base: string, abs: string): string => (base === "/" ? abs.slice(1) : abs.slice(base.length + 1))

/** The last rule of the chain matching `abs` decides: true = ignored, false = re-included. @category matching */
export const chainDecision = (
  chain: ReadonlyArray<RuleSet>,
  abs: string,
  isDir: boolean,
  name: string = abs.slice(abs.lastIndexOf("/") + 1)
): boolean | undefined => {
  for (let i = chain.length - 1; i >= 0; i--) {
    const set = chain[i]!
    let rel: string | undefined
    for (let j = set.rules.length - 1; j >= 0; j--) {
      const rule = set.rules[j]!
      if (rule.dirOnly && !isDir) continue
      const hit = rule.nameRegex !== undefined ? rule.nameRegex.test(name) : rule.regex.test(rel ??= relativeTo(set.base, abs))
      if (hit) return !rule.negated
    }
  }
  return undefined
}

/** The names of the files that decide a directory's rules, from its entries (what {@link IgnoreTree.stateOf} needs to know). @category constructors */
export const ruleFileNames = (entries: ReadonlyArray<{ readonly name: string }>): ReadonlySet<string> => {
  const names = new Set<string>()
  for (const entry of entries) if (RULE_FILES.has(entry.name)) names.add(entry.name)
  return names
}

const readText = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}
const exists = (file: string): boolean => {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined
  } catch {
    return false
  }
}

/** Nearest directory at or above `dir` holding a `.git` entry. */
const findWorkTreeTop = (dir: string): string | undefined => {
  for (let current = dir; ; current = path.dirname(current)) {
    if (exists(path.join(current, ".git"))) return current
    if (path.dirname(current) === current) return undefined
  }
}

/** Builds the ignore view of a search rooted at the directory `root`. @category constructors */
export const makeIgnoreTree = (
  root: string,
  options: IgnoreOptions,
  settings: { readonly defaultExcludes: boolean } = { defaultExcludes: true }
): IgnoreTree => {
  const top = options.gitignore || options.toolwrightIgnore ? findWorkTreeTop(root) : undefined
  const twBase = options.workspaceRoot !== undefined && isWithin(root, options.workspaceRoot)
    ? options.workspaceRoot
    : top ?? root
  const cache = new Map<string, DirState>()
  const skipped: Array<SkippedRuleLine> = []
  const rulesAt = (base: string, text: string | undefined, file: string): ReadonlyArray<RuleSet> => {
    if (text === undefined) return []
    const parsed = parseIgnoreFileReport(text)
    for (const line of parsed.skipped) skipped.push({ file: path.join(base, file), line: line.line })
    return [{ base, rules: parsed.rules }]
  }

  /** The state of `dir`; `names` (its entries) spares the existence checks of the ignore files. */
  const compute = (dir: string, parent: DirState | undefined, names?: ReadonlySet<string>): DirState => {
    const has = (name: string) => names === undefined ? exists(path.join(dir, name)) : names.has(name)
    const hasGit = options.gitignore && has(".git")
    const active = parent?.git !== undefined || hasGit
    const gitignore = active && has(GIT_IGNORE_FILE) ? readText(path.join(dir, GIT_IGNORE_FILE)) : undefined
    const exclude = hasGit ? readText(path.join(dir, ".git", "info", "exclude")) : undefined
    const twText = options.toolwrightIgnore && isWithin(dir, twBase) && has(TOOLWRIGHT_IGNORE_FILE)
      ? readText(path.join(dir, TOOLWRIGHT_IGNORE_FILE))
      : undefined
    if (parent !== undefined && gitignore === undefined && exclude === undefined && twText === undefined && !(hasGit && parent.git === undefined)) {
      // no ignore file here: the parent's rules, shared
      return { dir, git: parent.git, gitExtra: parent.gitExtra, tw: parent.tw }
    }
    const tw = [...(parent?.tw ?? []), ...rulesAt(dir, twText, TOOLWRIGHT_IGNORE_FILE)]
    if (parent?.git !== undefined) {
      return { dir, git: [...parent.git, ...rulesAt(dir, gitignore, GIT_IGNORE_FILE)], gitExtra: [...parent.gitExtra, ...rulesAt(dir, exclude, ".git/info/exclude")], tw }
    }
    if (hasGit) return { dir, git: [...rulesAt(dir, exclude, ".git/info/exclude"), ...rulesAt(dir, gitignore, GIT_IGNORE_FILE)], gitExtra: [], tw }
    return { dir, git: undefined, gitExtra: [], tw }
  }

  const classify = (parent: DirState, name: string, isDir: boolean): ExclusionReason | undefined => {
    if (settings.defaultExcludes && DEFAULT_EXCLUDED_NAMES.has(name)) return "default"
    if (parent.git === undefined && parent.tw.length === 0) return undefined
    const abs = parent.dir === "/" ? `/${name}` : `${parent.dir}/${name}`
    if (parent.git !== undefined) {
      if (chainDecision(parent.git, abs, isDir, name) === true) return "git"
      if (parent.gitExtra.some((set) => chainDecision([set], abs, isDir, name) === true)) return "git"
    }
    if (chainDecision(parent.tw, abs, isDir, name) === true) return "toolwright"
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
    state = compute(dir, state)
    cache.set(dir, state)
  }
  const rootState = state!
  const empty = (dir: string): DirState => ({ dir, git: undefined, gitExtra: [], tw: [] })

  const stateOf = (dir: string, names?: ReadonlySet<string>): DirState => {
    const cached = cache.get(dir)
    if (cached !== undefined) return cached
    if (!isWithin(dir, root)) return empty(dir)
    const computed = compute(dir, stateOf(path.dirname(dir)), names)
    cache.set(dir, computed)
    return computed
  }

  /** A directory below the root (relative path): its state, or why it is hidden. Cached, so the files of one directory share it. */
  const verdicts = new Map<string, DirState | ExclusionReason>()
  const dirVerdict = (relDir: string): DirState | ExclusionReason => {
    const cached = verdicts.get(relDir)
    if (cached !== undefined) return cached
    const slash = relDir.lastIndexOf("/")
    const parent = slash === -1 ? rootState : dirVerdict(relDir.slice(0, slash))
    const name = slash === -1 ? relDir : relDir.slice(slash + 1)
    const verdict = typeof parent === "string"
      ? parent
      : classify(parent, name, true) ?? stateOf(parent.dir === "/" ? `/${name}` : `${parent.dir}/${name}`)
    verdicts.set(relDir, verdict)
    return verdict
  }

  const reasonFor = (relPath: string, isDir: boolean): ExclusionReason | undefined => {
    if (rootHidden) return "toolwright"
    const slash = relPath.lastIndexOf("/")
    const parent = slash === -1 ? rootState : dirVerdict(relPath.slice(0, slash))
    return typeof parent === "string" ? parent : classify(parent, relPath.slice(slash + 1), isDir)
  }

  return {
    root,
    insideWorkTree: top !== undefined,
    rootGitIgnored,
    rootHidden,
    stateOf,
    classify,
    reasonFor,
    skippedLines: () => skipped
  }
}
