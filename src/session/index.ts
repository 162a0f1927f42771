/**
 * The session room's surface: what other rooms import from it (kept by `node scripts/surfaces.mjs`).
 *
 * @since 0.1.0
 */
export { type SessionEvent, SessionEvents, type SessionLogLevel } from "./events.js"
export type { LineRange } from "./lineRanges.js"
export { locateParam, locateWritableParam, realLocation, realLocations } from "./location.js"
export { displayPath, unescapePath } from "./paths.js"
export { checkPriorRead, type PriorReadError } from "./priorRead.js"
export {
  type FileIdentity,
  FileReadCache,
  type FileReadCacheService,
  inodeKey,
  type ReadEvidence,
  sameFile
} from "./readCache.js"
export { isPathInside, MAX_SYMLINK_HOPS, resolveRealPath } from "./realPath.js"
export { type NamedSessionError, type NamedSessionOptions, namedSessionLayer, openNamedSession, type SessionExtras } from "./namedSession.js"
export { newSessionId, Session } from "./session.js"
export {
  makeFileSessionStore,
  makeMemorySessionStore,
  MAX_CARRIED_OUTPUTS,
  SESSION_NAME,
  SessionExpired,
  SessionNotFound,
  type SessionRecord,
  SessionStoreFailed,
  type SessionStoreService,
  SQL_URL_ENV,
  type StoredOutput
} from "./sessionStore.js"
export { describeSqlFailure, failedToConnect, SQL_OPERATION_TIMEOUT_MS, withDeadline } from "./sqlFailure.js"
export { ensureStateSubdir } from "./stateDir.js"
export { keepUnsaved, UNSAVED_SESSIONS_DIR } from "./unsavedSessions.js"
export { makeWorkspace, Workspace, type WorkspaceService } from "./workspace.js"
