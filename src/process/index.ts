/**
 * Process trees: listing a process's descendants (Linux `/proc`, one `ps` snapshot, or `pgrep -P`)
 * within the reference's caps, and killing a whole tree (group, descendants, tagged processes;
 * SIGTERM, a grace period, then SIGKILL). The shell tool and the MCP client both stand on it.
 *
 * @since 0.1.0
 */
export * from "./tree.js"
export * from "./environment.js"
export * from "./orphanGuard.js"
export * from "./sandbox.js"
export * from "./sandboxBlocked.js"
export * from "./launchGate.js"
export * from "./launcher.js"
