/**
 * The read side of the registry: one committed tool set turned into the lists readers ask for
 * (declarations, hidden deferred tools, lookups by name). Pure: the registry builds a snapshot once
 * per committed state and hands the same one to every reader of that state.
 *
 * @since 0.1.0
 */
import * as HashSet from "effect/HashSet"
import { type AnyTool, byNameOrder, compareText, sortTools, type ToolInfo } from "../tool/index.js"

/** A tool set sorted once (a reveal does not change it). @category models */
export interface Sorted {
  /** Tools shown whatever the reveals (not deferred, always loaded, or configured visible). */
  readonly visibleBase: ReadonlyArray<AnyTool>
  /** Tools shown only once revealed. */
  readonly deferred: ReadonlyArray<AnyTool>
  readonly deferredNames: ReadonlySet<string>
  readonly byName: ReadonlyArray<AnyTool>
  /** Sorted by display name on first use (only `tools` asks; sorting 100,000 tools is not free). */
  readonly byDisplayName: () => ReadonlyArray<AnyTool>
  /** Lower-cased name → name, built on first use (only a miss in `canonicalName` asks). */
  readonly byLowerName: () => ReadonlyMap<string, string>
  readonly byNameMap: ReadonlyMap<string, AnyTool>
}

/** One committed state of the registry as readers see it. @category models */
export interface Snapshot extends Sorted {
  /** The version of the declaration list this snapshot shows (see `DeclarationChange.version`). */
  readonly version: number
  readonly declarations: ReadonlyArray<ToolInfo>
  readonly hiddenList: ReadonlyArray<AnyTool>
  readonly isHidden: (name: string) => boolean
}

/** Shown whatever the reveals, or shown because revealed. @category predicates */
export const isVisible = (tool: ToolInfo, revealed: boolean, visible: ReadonlySet<string>): boolean =>
  !tool.shouldDefer || tool.alwaysLoad || revealed || visible.has(tool.name)

/**
 * Merges two lists sorted by {@link byNameOrder}, ties left first. `right` (the revealed tools) is
 * usually short: each of its items is placed by binary search, so a reveal costs a few comparisons
 * and one copy of `left`, not a comparison per declared tool.
 */
const mergeByName = <A extends ToolInfo>(left: ReadonlyArray<A>, right: ReadonlyArray<A>): Array<A> => {
  const out = new Array<A>(left.length + right.length)
  let i = 0
  let o = 0
  for (const item of right) {
    // The first left item after `item` (ties stay before it), searched from where the last one went.
    let lo = i
    let hi = left.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (byNameOrder(left[mid]!, item) <= 0) lo = mid + 1
      else hi = mid
    }
    while (i < lo) out[o++] = left[i++]!
    out[o++] = item
  }
  while (i < left.length) out[o++] = left[i++]!
  return out
}

/** Sorts a tool set once. @category constructors */
export const sortAll = (all: Iterable<AnyTool>, visible: ReadonlySet<string>): Sorted => {
  // One pass reads the tool objects; the sort then works on names alone (names are unique here). A
  // comparator reading each tool object was 3–5× slower at 100,000 tools: the objects are scattered
  // over a large heap and every read is a cache miss.
  const byNameMap = new Map<string, AnyTool>()
  const deferredNames = new Set<string>()
  for (const tool of all) {
    byNameMap.set(tool.name, tool)
    if (!isVisible(tool, false, visible)) deferredNames.add(tool.name)
  }
  const names = Array.from(byNameMap.keys()).sort(compareText)
  const byName: Array<AnyTool> = []
  const visibleBase: Array<AnyTool> = []
  const deferred: Array<AnyTool> = []
  for (const name of names) {
    const tool = byNameMap.get(name)!
    byName.push(tool)
    ;(deferredNames.has(name) ? deferred : visibleBase).push(tool)
  }
  let displayMemo: ReadonlyArray<AnyTool> | undefined
  let lowerMemo: ReadonlyMap<string, string> | undefined
  return {
    visibleBase,
    deferred,
    deferredNames,
    byName,
    byDisplayName: () =>
      displayMemo ??= [...byName].sort((a, b) => compareText(a.displayName, b.displayName) || compareText(a.name, b.name)),
    byLowerName: () => lowerMemo ??= new Map(names.map((name) => [name.toLowerCase(), name])),
    byNameMap
  }
}

/**
 * A sorted tool set seen through one reveal set. Only the (few) revealed tools differ from the
 * tool set's base lists: no pass over all tools.
 *
 * @category constructors
 */
export const withReveals = (sorted: Sorted, revealed: HashSet.HashSet<string>, version: number): Snapshot => {
  const revealedNames: ReadonlySet<string> = new Set(revealed)
  const revealedTools = HashSet.size(revealed) === 0 ? [] : sortTools(
    Array.from(revealedNames, (name) => sorted.byNameMap.get(name)).filter((t): t is AnyTool =>
      t !== undefined && sorted.deferredNames.has(t.name)
    )
  )
  const declarations = revealedTools.length === 0 ? sorted.visibleBase : mergeByName(sorted.visibleBase, revealedTools)
  // The hidden list is only needed by keyword search: computed on first use.
  let hiddenMemo: ReadonlyArray<AnyTool> | undefined
  const hiddenList = () =>
    hiddenMemo ??= revealedTools.length === 0 ? sorted.deferred : sorted.deferred.filter((t) => !revealedNames.has(t.name))
  return {
    ...sorted,
    version,
    declarations,
    get hiddenList() {
      return hiddenList()
    },
    isHidden: (name) => sorted.deferredNames.has(name) && !revealedNames.has(name)
  }
}
