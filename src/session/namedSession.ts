/**
 * A named session's life: {@link openNamedSession} checks the store before the session is built
 * (unknown with `resume`, expired, unreadable: typed errors, never a silent new session), and
 * {@link namedSessionLayer} restores the evidence into the fresh read cache and saves it back when
 * the session's scope closes.
 *
 * @since 0.2.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { FileReadCache } from "./readCache.js"
import { captureEvidence, restoreEvidence } from "./resume.js"
import {
  DEFAULT_SESSION_TTL_MS,
  evidenceKey,
  outputKey,
  SESSION_NAME,
  SESSION_TTL_ENV,
  SessionExpired,
  SessionNotFound,
  type SessionRecord,
  type SessionStoreService,
  SessionStoreFailed
} from "./sessionStore.js"
import { Workspace } from "./workspace.js"

/** How a door asks for a named session. @category models */
export interface NamedSessionOptions {
  /** The session's name (see {@link SESSION_NAME}); it is also the session id. */
  readonly name: string
  /** Only continue: an unknown name fails with {@link SessionNotFound} instead of starting the session. */
  readonly resume?: boolean | undefined
  /** Unused for longer than this (ms), the session is expired; default `TOOLWRIGHT_SESSION_TTL_HOURS` or 7 days. */
  readonly ttlMs?: number | undefined
}

/** Every way {@link openNamedSession} fails. @category errors */
export type NamedSessionError = SessionNotFound | SessionExpired | SessionStoreFailed

const ttlFromEnv = Config.option(Config.Number(SESSION_TTL_ENV)).pipe(
  Effect.map((hours) => Option.isSome(hours) && hours.value > 0 ? hours.value * 3_600_000 : DEFAULT_SESSION_TTL_MS),
  Effect.orElseSucceed(() => DEFAULT_SESSION_TTL_MS)
)

/**
 * Looks the session up: its record (none for a new session), or a typed error when the name is
 * invalid, unknown with `resume`, expired, or its record unreadable.
 * @category constructors
 */
export const openNamedSession = (
  options: NamedSessionOptions,
  store: SessionStoreService
): Effect.Effect<Option.Option<SessionRecord>, NamedSessionError> =>
  Effect.gen(function*() {
    if (!SESSION_NAME.test(options.name)) {
      return yield* new SessionStoreFailed({
        message: `"${options.name}" is not a session name: use 1–64 letters, digits, ".", "_" or "-", not starting with ".".`
      })
    }
    const record = yield* store.load(options.name)
    if (Option.isNone(record)) {
      if (options.resume === true) {
        return yield* new SessionNotFound({
          message: `There is no saved session "${options.name}" to resume. Start it without --resume (the first ` +
            `call with --session ${options.name} creates it), or check the name.`
        })
      }
      return record
    }
    const ttlMs = options.ttlMs ?? (yield* ttlFromEnv)
    const now = Date.now()
    if (now - record.value.lastUsedAt > ttlMs) {
      return yield* new SessionExpired({
        message: `Session "${options.name}" was last used ${new Date(record.value.lastUsedAt).toISOString()}, longer ` +
          `ago than its time to live (${Math.round(ttlMs / 3_600_000)} h), so what it knew is no longer trusted. Start ` +
          `a session under a new name (files must be read again before editing), or raise ${SESSION_TTL_ENV}.`
      })
    }
    return record
  })

/** The record's evidence under the current roots, re-indexed onto them (other roots left out). */
const reindexed = (record: SessionRecord, roots: ReadonlyArray<string>) =>
  record.evidence.flatMap((e) => {
    const root = roots.indexOf(record.roots[e.root] ?? "")
    return root < 0 ? [] : [{ ...e, root }]
  })

/** What a session keeps besides read evidence, from services above this room (the registry, events). @category models */
export interface SessionExtras<R> {
  /** Puts the record's extras back (reveals, reminders) when the session starts. */
  readonly restore: (record: SessionRecord) => Effect.Effect<void, never, R>
  /** The extras to save when the session closes. */
  readonly capture: Effect.Effect<Pick<SessionRecord, "revealed" | "reminders" | "outputs">, never, R>
}

/**
 * Restores the record's evidence into the session's read cache when built, and saves the
 * session's evidence to the store when its scope closes (a failed save is logged as an error; a
 * store wrapped in `keepUnsaved` keeps the record on disk for the next start, with any other store
 * the evidence is lost, so the next process asks for a read again). `extras` restores and
 * captures the rest of the record (revealed tools, waiting reminders, saved outputs).
 * @category layers
 */
export const namedSessionLayer = <R = never>(
  name: string,
  record: Option.Option<SessionRecord>,
  store: SessionStoreService,
  extras?: SessionExtras<R>
): Layer.Layer<never, never, FileReadCache | Workspace | R> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const cache = yield* FileReadCache
    const workspace = yield* Workspace
    const createdAt = Option.match(record, { onNone: () => Date.now(), onSome: (r) => r.createdAt })
    if (Option.isSome(record)) {
      yield* restoreEvidence(record.value, workspace.roots, cache)
      if (extras !== undefined) yield* extras.restore(record.value)
    }
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const evidence = yield* captureEvidence(cache, workspace.roots)
        const more = extras === undefined ? {} : yield* extras.capture
        const saved: SessionRecord = {
          version: 1,
          name,
          createdAt,
          lastUsedAt: Date.now(),
          roots: [...workspace.roots],
          evidence,
          ...(more.revealed !== undefined && more.revealed.length > 0 ? { revealed: more.revealed } : {}),
          ...(more.reminders !== undefined ? { reminders: more.reminders } : {}),
          ...(more.outputs !== undefined && more.outputs.length > 0 ? { outputs: more.outputs } : {})
        }
        // evidence loaded at start and not carried now (its file changed, or it was evicted) stays dropped
        const carried = new Set(evidence.map(evidenceKey))
        const gone = new Set<string>()
        for (const e of Option.match(record, { onNone: () => [], onSome: (r) => reindexed(r, workspace.roots) })) {
          if (!carried.has(evidenceKey(e))) gone.add(evidenceKey(e))
        }
        // likewise a saved output listed at start whose file was gone (or is now)
        const outputsNow = new Set((saved.outputs ?? []).map((o) => o.id))
        for (const o of Option.match(record, { onNone: () => [], onSome: (r) => r.outputs ?? [] })) {
          if (!outputsNow.has(o.id)) gone.add(outputKey(o.id))
        }
        // a store that keeps unsaved records (keepUnsaved) says where in the message
        yield* store.save(saved, gone).pipe(
          Effect.catch((e) => Effect.logError(`toolwright: session "${name}" was not saved: ${e.message}`))
        )
      })
    )
  }))
