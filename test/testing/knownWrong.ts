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

export const KNOWN_WRONG: ReadonlyArray<KnownWrong> = [
  {
    kind: "dashes/em_dash_for_triple_hyphen",
    why: "issue 19 class 2 (dash runs): — written for ---, folded to one hyphen, matches inside the run and leaves a stray --",
    seed: 19,
    path: "13:146:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0"
  },
  {
    kind: "indentation_drift/dedented_new_in_file_frame",
    why: "issue 19 class 3 (indentation shifted twice): old_string dedented, new_string already in the file’s indentation, re-indented again",
    seed: 19,
    path: "8:0:1:2:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0"
  },
  {
    kind: "indentation_drift/indented_more_new_in_file_frame",
    why: "issue 19 class 3 (indentation shifted twice): old_string over-indented, new_string already in the file’s indentation, de-indented again",
    seed: 19,
    path: "2:2:2:2:2:2:4:4:4:4:4:4:4:4:4:4:4:4:4:4:4:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:9:10:19:19:19:19:19:19:19:19:19:19"
  },
  {
    kind: "over_escaping/new_escaped_more_kinds",
    why: "not in issue 19’s list: old_string and new_string both over-escaped, but new_string uses an escape kind old_string does not (\\n for an added line), so new_string is written with literal backslash sequences",
    seed: 19,
    path: "2:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:2:1:1:1:1:1:1:1:2:2:2:2:2:2:2:2:2:2"
  },
  {
    kind: "ambiguous_duplicates/substring_in_longer_line",
    why: "issue 19 class 1 (ambiguity checked only where lines align): trim_end matches the line, the same text also sits inside a longer indented line",
    seed: 19,
    path: "0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:2:2:2:2:2:2:2:2"
  }
]

/** True when wrong landings of this kind are tolerated for now. */
export const isKnownWrong = (kind: string): boolean => KNOWN_WRONG.some((k) => k.kind === kind)
