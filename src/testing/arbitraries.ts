/**
 * The generators as fast-check arbitraries: a code-like source text with every feature the
 * families perturb, and edit cases of one family (or any) over it or over texts you supply.
 *
 * @since 0.1.0
 */
import fc from "fast-check"
import { type EditCase, FAMILIES, type Family } from "./case.js"
import { BUILDERS, type Choice } from "./families.js"
import { makeSource, type Source } from "./window.js"

/** Options of {@link editCaseArb}. @category models */
export interface EditCaseOptions {
  /**
   * The texts cases are cut from: an arbitrary of texts, or a fixed list (made into sources once,
   * so large files are scanned once). Defaults to {@link codeTextArb}.
   */
  readonly sources?: fc.Arbitrary<string> | ReadonlyArray<string>
}

const WORDS = ["alpha", "beta", "gamma", "delta", "value", "count", "items", "result", "config", "handler"]

/** One line of the synthetic source (label `k` keeps it distinctive). */
const lineArb = (k: number, indent: string): fc.Arbitrary<string> =>
  fc.tuple(fc.nat({ max: 15 }), fc.constantFrom(...WORDS), fc.constantFrom(...WORDS)).map(([t, a, b]) => {
    switch (t) {
      case 0:
        return `${indent}const ${a}_${k} = "${b} it's ${k}";`
      case 1:
        return `${indent}// step ${k} -- check the ${a} before ${b}`
      case 2:
        return `${indent}- item ${k}: ${a}-${b} done`
      case 3:
        return `${indent}print('${a} ${k}', "${b}")   `
      case 4:
        return `${indent}note ${k}: \u201c${a}\u201d \u2013 ${b}\u2019s part`
      case 5:
        return `${indent}let ${a}${k} = ${b}\u00a0+ ${k} // spaced`
      case 6:
        return `${indent}s_${k} = "${a}\\t${b}\\n"`
      case 7:
        return `${indent}if (${a}_${k} > ${k}) {`
      case 8:
        return `${indent}}`
      case 9:
        return ""
      case 10:
        return `${indent}---`
      case 11:
        return `${indent}return ${a}(${b}, ${k}) --- ${a} \u2014 ${b}`
      case 12:
        return `${indent}${a}_${k}: ${b} \t`
      default:
        return `${indent}call_${k}(${a}, '${b}')`
    }
  })

/**
 * A code-like text (20–60 lines, one indentation unit, nested blocks) holding straight and curly
 * quotes, hyphen runs and typographic dashes, exotic spaces, trailing whitespace, escape sequences
 * and blank lines, so every family finds something to perturb.
 * @category arbitraries
 */
export const codeTextArb = (): fc.Arbitrary<string> =>
  fc.record({
    unit: fc.constantFrom("  ", "    ", "\t"),
    depths: fc.array(fc.nat({ max: 3 }), { minLength: 20, maxLength: 60 }),
    finalBreak: fc.boolean()
  }).chain(({ depths, finalBreak, unit }) =>
    fc.tuple(...depths.map((d, k) => lineArb(k, unit.repeat(d)))).map((lines) => lines.join("\n") + (finalBreak ? "\n" : ""))
  )

/** The random choices of one case. @category arbitraries */
export const choiceArb: fc.Arbitrary<Choice> = fc.record({
  seed: fc.nat({ max: 1_000_000 }),
  size: fc.integer({ min: 1, max: 4 }),
  shape: fc.constantFrom("append_word" as const, "add_line" as const, "remove_line" as const),
  pick: fc.nat({ max: 1000 }),
  variant: fc.nat({ max: 1000 }),
  noise: fc.array(fc.nat({ max: 1000 }), { minLength: 8, maxLength: 8 }),
  withBreak: fc.boolean(),
  at: fc.nat({ max: 1_000_000 })
})

const sourcesArb = (sources: EditCaseOptions["sources"]): fc.Arbitrary<Source> =>
  sources === undefined
    ? codeTextArb().map(makeSource)
    : Array.isArray(sources)
    ? fc.constantFrom(...(sources as ReadonlyArray<string>).map(makeSource))
    : (sources as fc.Arbitrary<string>).map(makeSource)

/**
 * Edit cases of one perturbation family. Texts that offer the family nothing are skipped, so give
 * texts that hold what it perturbs (quotes for `curly_quotes`, hyphens for `dashes`, indented
 * blocks for `indentation_drift`, …): when no text offers it anything, the arbitrary never yields
 * a case. Shrinking keeps the case valid.
 * @category arbitraries
 */
export const editCaseArb = (family: Family, options: EditCaseOptions = {}): fc.Arbitrary<EditCase> =>
  fc.tuple(sourcesArb(options.sources), choiceArb)
    .map(([source, choice]) => BUILDERS[family](source, choice))
    .filter((c): c is EditCase => c !== undefined && c.request.old_string !== c.request.new_string)

/** Edit cases of every family, in equal shares. @category arbitraries */
export const anyEditCaseArb = (options: EditCaseOptions = {}): fc.Arbitrary<EditCase> =>
  fc.oneof(...FAMILIES.map((family) => editCaseArb(family, options)))
