/**
 * Nothing lost when a remote store is down as a session closes: {@link keepUnsaved} wraps a store
 * (the SQL one) so that a save first writes the record to `<stateDir>/unsaved-sessions/` (mode
 * 0600, one file per save), then saves it to the store, and removes the file only once the store
 * took it. A save the store refused (down, refusing logins, not answering) or never finished (the
 * process was killed meanwhile) leaves the file; the next time a session of that name starts on
 * this machine with this store, the kept records are saved to the store first (merged, as any
 * save is) and their files removed. A file that does not decode is left as it is, with a warning.
 *
 * The kept records are on this machine: a session that moves to another machine before the
 * database is back does not see them until it starts here again.
 *
 * @since 0.2.0
 */
import { randomUUID } from "node:crypto"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { describeDiskError, ifExists, readdir, readText, remove, writeFileAtomic } from "../disk/index.js"
import { type SessionRecord, SessionRecord as SessionRecordSchema, SessionStoreFailed, type SessionStoreService } from "./sessionStore.js"
import { ensureStateSubdir } from "./stateDir.js"

/** The state subdirectory holding records a store has not taken yet. @category constants */
export const UNSAVED_SESSIONS_DIR = "unsaved-sessions"

/** A kept save: the record and the evidence keys it dropped. */
const KeptSave = Schema.Struct({ record: SessionRecordSchema, dropped: Schema.Array(Schema.String) })
const decodeKept = Schema.decodeUnknownOption(Schema.fromJsonString(KeptSave))

/** `NAME@<time>-<pid>-<random>.json` (sorts oldest first): `@` never occurs in a session name, so the prefix is exact. */
const keptPrefix = (name: string) => `${name}@`

/**
 * `store`, with saves kept on disk under `stateDir` until the store has them (see the module
 * comment). Loading a name first hands the store what was kept for it; if the store is still
 * unavailable, the load fails as the store's would.
 * @category constructors
 */
export const keepUnsaved = (store: SessionStoreService, stateDir: string): SessionStoreService => {
  const dir = path.join(stateDir, UNSAVED_SESSIONS_DIR)

  /** Writes the save ahead; the file, or the reason it could not be written. */
  const keep = (record: SessionRecord, dropped: ReadonlySet<string>) =>
    Effect.gen(function*() {
      yield* ensureStateSubdir(stateDir, UNSAVED_SESSIONS_DIR).pipe(Effect.mapError((e) => e.message))
      const file = path.join(dir, `${keptPrefix(record.name)}${Date.now()}-${process.pid}-${randomUUID().slice(0, 8)}.json`)
      yield* writeFileAtomic(file, JSON.stringify({ record, dropped: [...dropped] }), 0o600).pipe(Effect.mapError(describeDiskError))
      return file
    }).pipe(Effect.result)

  const save = Effect.fn("UnsavedSessions.save")(function*(record: SessionRecord, dropped: ReadonlySet<string>) {
    const kept = yield* keep(record, dropped)
    yield* store.save(record, dropped).pipe(
      Effect.mapError((e) =>
        new SessionStoreFailed({
          message: kept._tag === "Success"
            ? `${e.message} Its record is kept in ${kept.success} and goes to the store the next time session ` +
              `"${record.name}" starts on this machine with the same store.`
            : `${e.message} It could not be kept on disk either (${kept.failure}): what session "${record.name}" ` +
              `read must be read again.`
        })
      )
    )
    if (kept._tag === "Success") yield* remove(kept.success).pipe(Effect.ignore)
  })

  /** Hands the store the saves kept for `name`, oldest first; a file the store took is removed. */
  const flush = (name: string) =>
    Effect.gen(function*() {
      const names = (yield* ifExists(readdir(dir)).pipe(Effect.orElseSucceed(() => undefined))) ?? []
      const files = names.filter((f) => f.startsWith(keptPrefix(name)) && f.endsWith(".json")).sort()
      for (const file of files.map((f) => path.join(dir, f))) {
        const text = yield* ifExists(readText(file)).pipe(Effect.orElseSucceed(() => undefined))
        if (text === undefined) continue // taken meanwhile by another process
        const kept = decodeKept(text)
        if (Option.isNone(kept) || kept.value.record.name !== name) {
          yield* Effect.logWarning(`toolwright: ${file} is not a kept session record; it was left as it is.`)
          continue
        }
        yield* store.save(kept.value.record, new Set(kept.value.dropped))
        yield* remove(file).pipe(Effect.ignore)
        yield* Effect.logInfo(`toolwright: the record of session "${name}" kept in ${file} was saved to the store.`)
      }
    })

  const load = Effect.fn("UnsavedSessions.load")(function*(name: string) {
    yield* flush(name)
    return yield* store.load(name)
  })
  return { load, save }
}
