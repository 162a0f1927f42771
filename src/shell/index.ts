/**
 * The shell room: `run_shell_command` (PTY or pipes, timeouts, process-tree kill, background
 * shells, simulated `sed -i`), `task_stop` and `send_message`, and the session services behind
 * them ({@link ProcessHost}, {@link BackgroundShells}).
 *
 * @since 0.1.0
 */
export { BackgroundShells, type BackgroundShell, type ShellNotification, statusFilePathFor } from "./background.js"
export { ProcessHost, type BackendInfo, type RunRequest, type RunResult } from "./host.js"
export { DEFAULT_SHELL_SETTINGS, ShellConfig, type ShellSettings } from "./config.js"
export { makeRunShellCommand, type ShellData, type ShellError, SUBSTITUTION_WARNING } from "./runShellCommand.js"
export { makeTaskStop } from "./taskStop.js"
export { makeSendMessage } from "./sendMessage.js"
export type { ShellRunData } from "./foreground.js"
export type { SedEditData } from "./sedEdit.js"
export { applySedSubstitution, parseSedEditCommand, type SedEditInfo } from "./sed.js"
export { detectBlockedSleepPattern } from "./sleep.js"
export { detectSelfKillCommand } from "./selfKill.js"
export { getCommandRoots, hasCommandSubstitution, isShellExitError, stripShellWrapper } from "./commands.js"
export { isReadOnlyCommand, READ_ONLY_PROGRAMS } from "./readOnly.js"
export { killProcessTree, listDescendantPids, walkDescendants } from "./processTree.js"

export { layer, type ShellServices } from "./layer.js"
