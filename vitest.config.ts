import { defineConfig } from "vitest/config"

// vitest 5 needs Node >= 22.12. On Node 20 its reporter crashes when it prints a failing test
// ("Map.groupBy is not a function"); this polyfill runs in the main process and avoids that.
if (typeof (Map as any).groupBy !== "function") {
  ;(Map as any).groupBy = <K, T>(items: Iterable<T>, key: (item: T, index: number) => K) => {
    const map = new Map<K, Array<T>>()
    let i = 0
    for (const item of items) {
      const k = key(item, i++)
      const group = map.get(k)
      if (group) group.push(item)
      else map.set(k, [item])
    }
    return map
  }
}

// Long attack scenarios (the fuzzer, racing swappers, hundreds of overlapping edits) form the `slow`
// project: `npm run test:slow`, run by CI after `npm test`, which keeps the rest under its budget.
const SLOW = [
  "test/security/abuse-fuzz.test.ts",
  "test/security/abuse-hostile-workspace.test.ts",
  "test/security/abuse-special-files.test.ts",
  "test/security/symlink-race.test.ts",
  "test/robustness/overlapping-edits.test.ts"
]

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: "main", include: ["test/**/*.test.ts"], exclude: SLOW } },
      { extends: true, test: { name: "slow", include: SLOW } }
    ]
  }
})
