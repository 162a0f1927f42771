/**
 * Kinds of edit case (`family/variant`) that today's matching ladder still applies wrong, each with
 * the seed and fast-check path of one case that shows it (replayed by test/testing/knownWrong.test.ts,
 * which fails once the case no longer lands wrong: then delete the entry). The "never wrong"
 * properties tolerate a wrong landing only for the kinds listed here. The ladder fixes of issue 19
 * should empty this list.
 */
export interface KnownWrong {
  readonly kind: string
  /** Which class of issue 19 (or what else) it is. */
  readonly why: string
  readonly seed: number
  readonly path: string
}

export const KNOWN_WRONG: ReadonlyArray<KnownWrong> = []

/** True when wrong landings of this kind are tolerated for now. */
export const isKnownWrong = (kind: string): boolean => KNOWN_WRONG.some((k) => k.kind === kind)
