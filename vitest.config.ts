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

// Long scenarios form the `slow` project: `npm run test:slow`, run once per CI run after `npm test`
// (which runs `main` and `pure` and stays under its 6-minute budget on 2 cores). They are the attack
// scenarios (the fuzzer, racing swappers, hundreds of overlapping edits), the 100k-file tree, the
// backend parity table, MCP resilience, the 1 GiB flood and the end-to-end runs of the built CLI.
// A plain `npx vitest run` runs every project.
const SLOW = [
  "test/output/stream-1gib.test.ts",
  "test/robustness/overlapping-edits.test.ts",
  "test/robustness/search.test.ts",
  "test/security/abuse-fuzz.test.ts",
  "test/security/abuse-hostile-workspace.test.ts",
  "test/security/abuse-paths.test.ts",
  "test/security/abuse-special-files.test.ts",
  "test/security/read-race.test.ts",
  "test/security/symlink-race.test.ts",
  "test/search/large-tree.test.ts",
  "test/search/grep-parity.test.ts",
  "test/mcp/resilience.test.ts",
  "test/shell/flood.test.ts",
  "test/**/*.e2e.test.ts",
  "test/**/*.slow.test.ts"
]

// Pure rooms' tests (no files, processes or environment: the text ladder, regex, policy, order,
// declarations, formats) share one module graph per worker (`isolate: false`) instead of importing
// Effect afresh for every file: measured on these 45 files, 27 s of CPU instead of 66 s. A test file
// renamed away from this list simply runs, isolated, in `main`.
const PURE = [
  "test/bench/growth.test.ts",
  "test/cli/help.test.ts",
  "test/files/readPieces.test.ts",
  "test/files/units.test.ts",
  "test/mcp/{budget,content,filter,tool}.test.ts",
  "test/output/{budget,config,properties,stub,truncate}.test.ts",
  "test/plan/board.test.ts",
  "test/registry/{search,toolSearch}/*.test.ts",
  "test/registry/toolSearch.test.ts",
  "test/run/policy.test.ts",
  "test/search/{braces,grep-format,line-splitter,regex,ripgrep-json}.test.ts",
  "test/serve/stdioTransport.test.ts",
  "test/shell/{analysis,sed}.test.ts",
  "test/testing/{generators,oracle}.test.ts",
  "test/text/{change,codec,diff,large,lines,properties,reference,resolve}.test.ts",
  "test/tool/{errno,errors,order,tool}.test.ts"
]

export default defineConfig({
  test: {
    // vitest's default in run mode is one worker fewer than the cores: one, here. The suites wait on
    // real processes most of the time, so one worker per core roughly halves the wall time.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: "main", include: ["test/**/*.test.ts"], exclude: [...SLOW, ...PURE] } },
      { extends: true, test: { name: "pure", include: PURE, isolate: false } },
      { extends: true, test: { name: "slow", include: SLOW } }
    ]
  }
})
