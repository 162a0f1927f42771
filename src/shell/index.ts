/**
 * The shell room: `run_shell_command` (PTY or pipes, timeouts, process-tree kill, background
 * shells, simulated `sed -i`), `task_stop` and `send_message`, and the session services behind
 * them ({@link ProcessHost}, {@link BackgroundShells}).
 *
 * @since 0.1.0
 */

/** The session's background shells: start, stop, write to stdin, notifications (Stream and drain). */
export { BackgroundShells, type BackgroundShell, type ShellNotification, statusFilePathFor } from "./background/background.js"
export { sendMessageDeclaration } from "./background/sendMessage.decl.js"
export { taskStopDeclaration } from "./background/taskStop.decl.js"
export { runShellCommandDeclaration } from "./command/runShellCommand.decl.js"
/** Where a session's commands run (PTY or pipes), with bounded capture and tree kill. */
export { ProcessHost, type BackendInfo, type RunRequest, type RunResult } from "./terminal/host.js"
/** The shell settings (a Context.Reference with the reference defaults). */
export { DEFAULT_SHELL_SETTINGS, settingsInEffect, ShellConfig, type ShellSettings } from "./config.js"
/** The `run_shell_command` tool constructor and its data and error types. */
export { makeRunShellCommand, type ShellData, type ShellError, SUBSTITUTION_WARNING } from "./command/runShellCommand.js"
/** The `task_stop` tool constructor. */
export { makeTaskStop } from "./background/taskStop.js"
/** The `send_message` tool constructor. */
export { makeSendMessage } from "./background/sendMessage.js"
/** What a foreground run returns to programs. */
export type { ShellRunData } from "./command/foreground.js"
/** What a simulated sed edit returns to programs. */
export type { SedEditData } from "./command/sedEdit.js"
/** The simulated in-place sed: apply (reference §9.7). */
export { applySedSubstitution, type SedEditInfo } from "./command/sed.js"
/** A command line parsed once and analysed (roots, substitution, read-only, self-kill, sleep, sed). */
export { analyzeCommand, type CommandAnalysis } from "./command/analysis.js"
/**
 * The same answers from a string (each parses once): the sed recogniser, the blocked leading-sleep
 * rule and the self-kill guard (reference §9.2, §9.7), roots, substitution, exit-code rules,
 * wrapper stripping, the read-only proof behind the default `allow`.
 */
export {
  detectBlockedSleepPattern,
  detectSelfKillCommand,
  getCommandRoots,
  hasCommandSubstitution,
  isReadOnlyCommand,
  isShellExitError,
  parseSedEditCommand,
  stripShellWrapper
} from "./command/analysis.js"
/** The read-only program list. */
export { READ_ONLY_PROGRAMS } from "./command/readOnly.js"
/** Process trees: list descendants, kill a whole tree. */
export { killProcessTree, listDescendantPids, walkDescendants } from "../process/index.js"
/** The session-scoped shell services as one Layer. */
export { layer, type ShellServices } from "./layer.js"
