/**
 * The serve room's surface: what other rooms import from it (kept by `node scripts/surfaces.mjs`).
 *
 * @since 0.1.0
 */
export { ERROR_TYPE_META, toCallToolResult } from "./content.js"
export type { HttpServeOptions } from "./http.js"
export { elicitingApprover } from "./elicitation.js"
export { readOutputPage, withOutputLinks } from "./outputResources.js"
export { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_SESSIONS, parseListenAddress } from "./httpAccess.js"
export { announcementOf, makeMcpServer, type ServeOptions } from "./server.js"
export { configuredMaxMessageBytes, serveStdio } from "./stdio.js"
