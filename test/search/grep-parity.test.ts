import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { selectGrepBackend } from "../../src/search/grep/select.js"
import { makeSystemGrepBackend } from "../../src/search/grep/systemGrep.js"
import type { GrepBackend, GrepBackendName, GrepRequest, GrepResult } from "../../src/search/grep/types.js"
import { makeSearchFixture, removeTree } from "./fixture.js"

const root = makeSearchFixture()
afterAll(() => removeTree(root))

const view = (r: GrepResult) => ({ total: r.totalMatches, lines: r.matches.map((m) => `${m.path}:${m.line}:${m.text}`) })

const backends = Effect.gen(function*() {
  const forced: Array<readonly [string, GrepBackend]> = []
  for (const force of ["ripgrep", "git-grep", "grep", "js"] as ReadonlyArray<GrepBackendName>) {
    forced.push([force, yield* selectGrepBackend(root, { force })])
  }
  forced.push(["grep/ere", yield* makeSystemGrepBackend({ dialect: "ere" })])
  return forced
})

interface Query {
  readonly pattern: string
  readonly glob?: string
  readonly sub?: string
}

const QUERIES: ReadonlyArray<Query> = [
  { pattern: "hello" }, { pattern: "HELLO" }, { pattern: "HeLLo wOrLd" }, { pattern: "\\d+" }, { pattern: "\\w+_\\w+" },
  { pattern: "^hello" }, { pattern: "line$" }, { pattern: "^end$" }, { pattern: "cat|qux" }, { pattern: "\\bcat\\b" },
  { pattern: "straße" }, { pattern: "äpfel" }, { pattern: "na.ve" }, { pattern: "caf. hello" }, { pattern: "😀" },
  { pattern: "hello", glob: "*.md" }, { pattern: "\\d+", glob: "*.{ts,js}" }, { pattern: "hello", glob: "src/**" },
  { pattern: "hello", glob: "!*.txt" }, { pattern: "hello (log|keep)" }, { pattern: "binary" }, { pattern: "hello first" },
  { pattern: "a\\rb" }, { pattern: "(?<=x-)ray" }, { pattern: "(\\w)\\1" }, { pattern: "[^a-z ]+$" }, { pattern: "\\s$" },
  { pattern: "repository" }, { pattern: "^$" }, { pattern: "caf\\u00e9" }, { pattern: "\\x41" },
  { pattern: "." }, { pattern: "\\Bell" }, { pattern: "[\\W\\d]ay" }, { pattern: "TODO:?" }, { pattern: "\\." },
  { pattern: "a.b" }, { pattern: "a\\sb" }, { pattern: "kelvin|\\u212a" }, { pattern: "\\d{4}-\\d{2}-\\d{2}" },
  { pattern: "(?:foo|ba[rz])$" }, { pattern: "[[\\]]" }, { pattern: "\\w+\\s*=\\s*\\d" }, { pattern: "hello", sub: "src" },
  { pattern: "ÄPFEL", sub: "src/util/strings.ts" }, { pattern: "hello", sub: "debug.log" }, { pattern: "^(?!hello).*o$" },
  { pattern: "x{2,}|a{2}" }, { pattern: "[-.]" }, { pattern: "^\\S+$" }, { pattern: "hello", glob: "*.LOG" },
  { pattern: "\u00df" }, { pattern: "\u2126|\u03c9" }, { pattern: "\u0131" }, { pattern: "I" }, { pattern: "\u017f" }
]

describe("grep parity across backends", () => {
  it.effect("every backend answers every query identically", () =>
    Effect.gen(function*() {
      const all = yield* backends
      const report: Array<string> = []
      const times: Record<string, number> = {}
      const perQuery: Array<string> = []
      for (const q of QUERIES) {
        const request: GrepRequest = {
          pattern: q.pattern,
          root: q.sub === undefined ? root : `${root}/${q.sub}`,
          ignore: { gitignore: true, toolwrightIgnore: true },
          ...(q.glob === undefined ? {} : { glob: q.glob })
        }
        const results = yield* Effect.forEach(all, ([name, b]) => Effect.gen(function*() {
          const t0 = Date.now()
          const r = yield* b.search(request)
          times[name] = (times[name] ?? 0) + Date.now() - t0
          if (name === "grep" || name === "git-grep") perQuery.push(`${name} ${q.pattern} ${Date.now() - t0}`)
          return [name, r] as const
        }))
        const reference = view(results[3]![1])
        report.push(`${JSON.stringify(q)} -> ${JSON.stringify(reference)} engines=${results.map(([n, r]) => `${n}:${r.engine}`).join(",")}`)
        for (const [name, r] of results) {
          assert.deepStrictEqual(view(r), reference, `${name} differs for ${JSON.stringify(q)}`)
        }
      }
      console.log(report.join("\n"))
      console.log(JSON.stringify(times))
      console.log(perQuery.join("\n"))
    }), 120_000)
})
