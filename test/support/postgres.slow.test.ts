/** The private PostgreSQL cluster the SQL tests run on starts here, answers a query through @effect/sql-pg, and stops. */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { Effect, Redacted } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import { startPostgres } from "./postgres.js"

describe("test support: a private PostgreSQL cluster", () => {
  it.live("starts on loopback, answers through @effect/sql-pg, and is removed when the scope closes", () =>
    Effect.gen(function*() {
      const dataDir = yield* Effect.scoped(Effect.gen(function*() {
        const pg = yield* startPostgres()
        const rows = yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{ readonly answer: number }>`select 40 + 2 as answer`
        }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(pg.url) })))
        assert.strictEqual(Number(rows[0]!.answer), 42)
        assert.isTrue(fs.existsSync(pg.dataDir))
        return pg.dataDir
      }))
      assert.isFalse(fs.existsSync(dataDir))
    }), 60_000)
})
