/**
 * The serve room's surface: what other rooms import from it (kept by `node scripts/surfaces.mjs`).
 *
 * @since 0.1.0
 */
export { serveStdio } from "./stdio.js"
