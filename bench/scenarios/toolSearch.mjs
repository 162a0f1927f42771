// tool_search over many deferred tools (select and keyword), and declaration lists for 1,000 tools.
import * as path from "node:path"
import { repoRoot, distDir, timeMedian } from "../lib.mjs"

export const name = "tool_search and declaration lists"

export const run = async ({ runs, smoke }) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Schema, Scope } = await import("effect")
  // A registry lives in a scope (what its lazy tools acquire is released with it); one for the whole run.
  const scope = await Effect.runPromise(Scope.make())
  const makeRegistry = () => Effect.runPromise(Scope.provide(scope)(tw.Registry.make()))
  const params = Schema.Struct({ q: Schema.String.annotate({ description: "q" }) })
  const words = ["create", "delete", "list", "issue", "message", "cron", "file", "repo", "user", "search", "stop", "send"]
  const makeTool = (i) => tw.defineTool({
    name: `tool_${i}_${words[i % words.length]}_${words[(i * 7) % words.length]}`,
    displayName: `T${i}`, description: `Does ${words[(i * 3) % words.length]} things number ${i}`,
    kind: tw.Kind.Other, shouldDefer: true, searchHint: `${words[(i * 5) % words.length]} hint`, params,
    invoke: () => Effect.succeed({ description: "x", execute: () => Effect.succeed(tw.textResult("x")) })
  })
  const sizes = smoke ? [100, 1_000] : [1_000, 10_000, 100_000]
  const rows = []
  for (const size of sizes) {
    const registry = await makeRegistry()
    const search = tw.makeToolSearch(registry)
    await Effect.runPromise(Effect.forEach(Array.from({ length: size }, (_, i) => makeTool(i)), (t) => registry.register(t), { discard: true }))
    // A query costs well under a millisecond: five samples after one warm-up measured the JIT tiers
    // and the garbage of registering the tools (GC pauses of tens of ms on a loaded machine), not the
    // query. So: collect that garbage first, warm up, and take the median of many queries. The first
    // list after registering (the registry sorts the new tool set) and the first keyword query
    // (which builds the keyword index) are reported beside it.
    globalThis.gc?.()
    const keywordQuery = () => Effect.runPromise(search.call({ query: "delete cron", max_results: 5 })).then(() => registry.clearRevealed.pipe(Effect.runPromise))
    const t0 = performance.now()
    await Effect.runPromise(registry.declarations)
    const t1 = performance.now()
    await keywordQuery()
    const sorting = t1 - t0
    const first = performance.now() - t1
    const q = smoke ? 3 : Math.max(50, Math.floor(runs))
    const warmup = smoke ? 1 : 10
    const keyword = await timeMedian(keywordQuery, { runs: q, warmup })
    const noMatch = await timeMedian(() => Effect.runPromise(search.call({ query: "zebra", max_results: 5 })), { runs: q, warmup })
    const select = await timeMedian(() => Effect.runPromise(search.call({ query: `select:tool_${size - 1}_${words[(size - 1) % words.length]}_${words[((size - 1) * 7) % words.length]}` })).then(() => registry.clearRevealed.pipe(Effect.runPromise)), { runs: q, warmup })
    const keywordNote = `no-match query ${(noMatch * 1000).toFixed(0)} µs; median of ${q}`
    rows.push({ scenario: "tool_search keyword", size: `${size} deferred tools`, ours: keyword * 1000, limit: NaN, unit: "µs/query", limitName: "—", ratio: NaN, note: size === 10_000 ? `target < 2 ms; ${keywordNote}` : keywordNote })
    rows.push({ scenario: "registry: first declaration list after registering", size: `${size} deferred tools`, ours: sorting, limit: NaN, unit: "ms", limitName: "—", ratio: NaN, note: "sorts the new tool set once; one run", growthWhy: "an n log n sort, and one read of each tool object, slower as the heap grows" })
    rows.push({ scenario: "tool_search: first keyword query", size: `${size} deferred tools`, ours: first, limit: NaN, unit: "ms", limitName: "—", ratio: NaN, note: "builds the keyword index once per tool set; one run" })
    rows.push({ scenario: "tool_search select", size: `${size} deferred tools`, ours: select * 1000, limit: NaN, unit: "µs/query", limitName: "—", ratio: NaN, note: `median of ${q}` })
  }
  // Declaration list of 1,000 visible tools, repeated (cached), and right after revealing one of
  // 1,000 deferred tools (each sample reveals a new one, so the list really changes).
  const registry = await makeRegistry()
  await Effect.runPromise(Effect.forEach(Array.from({ length: 1_000 }, (_, i) => makeTool(i)), (t) => registry.register(t), { discard: true }))
  const deferred = await Effect.runPromise(registry.names)
  await Effect.runPromise(Effect.forEach(Array.from({ length: 1_000 }, (_, i) => makeTool(i)), (t) => registry.register({ ...t, name: `visible_${t.name}`, shouldDefer: false }), { discard: true }))
  const cached = await timeMedian(() => Effect.runPromise(registry.declarations), { runs: 20 })
  let k = 0
  const afterReveal = await timeMedian(async () => {
    await Effect.runPromise(registry.reveal([deferred[k++ * 37 % deferred.length]]))
    await Effect.runPromise(registry.declarations)
  }, { runs: 20 })
  rows.push({ scenario: "declaration list", size: "1,000 tools, repeated", ours: cached * 1000, limit: NaN, unit: "µs", limitName: "—", ratio: NaN, note: "" })
  rows.push({ scenario: "declaration list", size: "1,000 tools, after a reveal", ours: afterReveal * 1000, limit: NaN, unit: "µs", limitName: "—", ratio: NaN, note: "" })
  return rows
}
