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
// project: `npm run test:slow`, run by CI after `npm test` (which runs the `main` project and stays
// under its 6-minute budget on 2 cores). A plain `npx vitest run` runs both.
const SLOW = [
  "test/output/stream-1gib.test.ts",
  "test/robustness/overlapping-edits.test.ts",
  "test/robustness/search.test.ts",
  "test/security/abuse-fuzz.test.ts",
  "test/security/abuse-hostile-workspace.test.ts",
  "test/security/abuse-paths.test.ts",
  "test/security/abuse-special-files.test.ts",
  "test/security/read-race.test.ts",
  "test/security/symlink-race.test.ts"
]

export default defineConfig({
  test: {
    // vitest's default in run mode is one worker fewer than the cores: one, here. The suites wait on
    // real processes most of the time, so one worker per core roughly halves the wall time.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: "main", include: ["test/**/*.test.ts"], exclude: SLOW } },
      { extends: true, test: { name: "slow", include: SLOW } }
    ]
  }
})
