// `node bench/outputIndex.mjs` (after `npm run build`): where a named session's saved outputs should
// live (issue 17). Saves N outputs of SIZE bytes and restores them in a new store, two ways:
//  - disk: the bytes stay in files under the state dir (the OutputStore as shipped); the record
//    carries the index (captureOutputs → JSON → restoreOutputs, which stats each file);
//  - sql: the bytes go to a PostgreSQL table too (one transaction of N inserts) and come back on
//    restore (one select of the N rows), as a store keeping bytes in SQL would need on another machine.
// Prints the median of RUNS runs of each step in ms. A private PostgreSQL (bench/pg.mjs).
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { OutputStore } from "../dist/output/store.js"
import { captureOutputs, restoreOutputs } from "../dist/run/sessionExtras.js"
import { startPg } from "./pg.mjs"

const N = Number(process.env.N ?? 100)
const SIZE = Number(process.env.SIZE ?? 100 * 1024)
const RUNS = Number(process.env.RUNS ?? 5)
const content = (i) => `${`output ${i} `.padEnd(99, "x")}\n`.repeat(Math.ceil(SIZE / 100)).slice(0, SIZE)
const platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const pg = await startPg()
const results = { diskSave: [], diskCapture: [], diskRestore: [], sqlSave: [], sqlRestore: [] }
try {
  const sqlLayer = PgClient.layer({ url: Redacted.make(pg.url) })
  await Effect.runPromise(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`create table if not exists bench_outputs (session text, id text, tool text, sha256 text, bytes bytea, primary key (session, id))`
  }).pipe(Effect.provide(sqlLayer)))
  for (let run = 0; run < RUNS; run++) {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "tw-outidx-"))
    const dir = path.join(stateDir, "outputs", "s")
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const ctx = yield* Layer.build(OutputStore.layer({ dir, maxSessionBytes: 2 * N * SIZE }).pipe(Layer.provide(platform)))
      const store = Context.get(ctx, OutputStore)
      const texts = Array.from({ length: N }, (_, i) => content(i))
      let t = performance.now()
      for (const [i, text] of texts.entries()) yield* store.persist(`tool${i % 4}`, text)
      results.diskSave.push(performance.now() - t)
      t = performance.now()
      const index = JSON.stringify(yield* captureOutputs(stateDir, store))
      results.diskCapture.push(performance.now() - t)
      const record = { outputs: JSON.parse(index) }
      // the bytes to SQL: one transaction of N inserts
      const saved = yield* store.list
      t = performance.now()
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.withTransaction(Effect.forEach(saved, (o, i) =>
          sql`insert into bench_outputs values (${`run${run}`}, ${o.id}, ${o.toolName}, ${o.sha256}, ${Buffer.from(texts[i])})`, { discard: true }))
      }).pipe(Effect.provide(sqlLayer))
      results.sqlSave.push(performance.now() - t)
      // restore: a new store of the same session adopts the files; or the rows come back from SQL
      yield* Effect.scoped(Effect.gen(function*() {
        const ctx2 = yield* Layer.build(OutputStore.layer({ dir, maxSessionBytes: 2 * N * SIZE }).pipe(Layer.provide(platform)))
        const store2 = Context.get(ctx2, OutputStore)
        const t2 = performance.now()
        const taken = yield* restoreOutputs({ ...record, version: 1, name: "s", createdAt: 0, lastUsedAt: 0, roots: [], evidence: [] }, stateDir, store2)
        results.diskRestore.push(performance.now() - t2)
        if (taken !== N) throw new Error(`restored ${taken} of ${N}`)
      }))
      t = performance.now()
      const rows = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql`select id, tool, sha256, bytes from bench_outputs where session = ${`run${run}`}`
      }).pipe(Effect.provide(sqlLayer))
      results.sqlRestore.push(performance.now() - t)
      if (rows.length !== N) throw new Error(`selected ${rows.length} of ${N}`)
    })))
    fs.rmSync(stateDir, { recursive: true, force: true })
  }
} finally {
  await pg.stop()
}
console.log(`outputIndex: ${N} outputs of ${SIZE} bytes, median of ${RUNS} runs (ms)`)
for (const [k, v] of Object.entries(results)) console.log(`  ${k.padEnd(12)} ${median(v).toFixed(1)}`)
