/**
 * The texts of background shells: the launch message, the `<task-notification>` a finished shell
 * sends to the model (reference §9.6), and the tail of an output file cut on a UTF-8 boundary.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import { stripControlCharacters } from "../terminal/plainText.js"

/** The states of a background shell. @category models */
export type BackgroundStatus = "running" | "completed" | "failed" | "cancelled"

/** Longest command in a notification summary. @category constants */
export const MAX_NOTIFICATION_COMMAND_LENGTH = 80
/** Longest command in the notification's `<command>`. @category constants */
export const MAX_NOTIFICATION_MODEL_COMMAND_LENGTH = 500
/** Bytes of output tail a notification carries. @category constants */
export const MAX_NOTIFICATION_OUTPUT_TAIL_BYTES = 8192

/** What a notification is built from. @category models */
export interface NotificationInput {
  readonly id: string
  readonly status: Exclude<BackgroundStatus, "running">
  readonly command: string
  readonly cwd: string
  readonly pid?: number | undefined
  readonly exitCode?: number | undefined
  readonly error?: string | undefined
  readonly outputPath: string
  /** The output tail, or `undefined` when the file could not be read. */
  readonly tail: { readonly text: string; readonly truncated: boolean } | undefined
}

/** XML-escapes text and strips C0/C1 control characters (tab and newline kept). @category formatting */
export const escapeXml = (text: string): string =>
  stripControlCharacters(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

const shorten = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 3)}...`)

const VERB: Record<NotificationInput["status"], string> = { completed: "completed", failed: "failed", cancelled: "was cancelled" }

/** The one-line summary: `Shell command "<cmd>" completed.` @category formatting */
export const notificationSummary = (command: string, status: NotificationInput["status"]): string =>
  `Shell command "${shorten(command.replace(/\s+/g, " "), MAX_NOTIFICATION_COMMAND_LENGTH)}" ${VERB[status]}.`

/** The people-facing line: `Background shell "<cmd>" completed.` @category formatting */
export const notificationDisplay = (command: string, status: NotificationInput["status"]): string =>
  `Background shell "${shorten(command.replace(/\s+/g, " "), MAX_NOTIFICATION_COMMAND_LENGTH)}" ${VERB[status]}.`

/**
 * The model-facing `<task-notification>` of a finished background shell.
 *
 * @category formatting
 */
export const taskNotification = (n: NotificationInput): string => {
  const lines = [
    "<task-notification>",
    `<task-id>${escapeXml(n.id)}</task-id>`,
    "<kind>shell</kind>",
    `<status>${n.status}</status>`,
    `<summary>${escapeXml(notificationSummary(n.command, n.status))}</summary>`,
    n.command.length > MAX_NOTIFICATION_MODEL_COMMAND_LENGTH
      ? `<command truncated="true">${escapeXml(n.command.slice(0, MAX_NOTIFICATION_MODEL_COMMAND_LENGTH))}</command>`
      : `<command>${escapeXml(n.command)}</command>`,
    `<cwd>${escapeXml(n.cwd)}</cwd>`
  ]
  if (n.pid !== undefined) lines.push(`<pid>${n.pid}</pid>`)
  if (n.exitCode !== undefined) lines.push(`<exit-code>${n.exitCode}</exit-code>`)
  if (n.error !== undefined) lines.push(`<result>${escapeXml(n.error)}</result>`)
  lines.push(
    n.tail
      ? `<output-tail truncated="${n.tail.truncated}">${escapeXml(n.tail.text)}</output-tail>`
      : `<output-tail error="unreadable" />`
  )
  lines.push(`<output-file>${escapeXml(n.outputPath)}</output-file>`, "</task-notification>")
  return lines.join("\n")
}

/**
 * The short reminder the model gets with its next tool result when a background shell ends: what
 * ended, how (exit code or why), where its output is, and what to do with it.
 *
 * @category formatting
 */
export const completionReminder = (n: Omit<NotificationInput, "tail" | "cwd">): string => {
  const how = n.exitCode !== undefined ? `exit code ${n.exitCode}` : n.error ?? "no exit code"
  return `Background task ${n.id} ended: ${notificationSummary(n.command, n.status).slice(0, -1)} (${how}). ` +
    `Its output is in ${n.outputPath}; read it with read_file.`
}

/** The last `maxBytes` of a buffer, starting on a UTF-8 character boundary. @category formatting */
export const utf8Tail = (bytes: Uint8Array, maxBytes: number): { readonly text: string; readonly truncated: boolean } => {
  if (bytes.length <= maxBytes) return { text: Buffer.from(bytes).toString("utf8"), truncated: false }
  let start = bytes.length - maxBytes
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
  return { text: Buffer.from(bytes.subarray(start)).toString("utf8"), truncated: true }
}

/** Reads the tail of a file (up to `maxBytes`), or `undefined` when it cannot be read. @category formatting */
export const readFileTail = (file: string, maxBytes = MAX_NOTIFICATION_OUTPUT_TAIL_BYTES) => {
  let fd: number | undefined
  try {
    fd = fs.openSync(file, "r")
    const size = fs.fstatSync(fd).size
    // one extra byte, so that a boundary at the cut is recognised
    const want = Math.min(size, maxBytes + 3)
    const buffer = Buffer.alloc(want)
    fs.readSync(fd, buffer, 0, want, size - want)
    const tail = utf8Tail(buffer, maxBytes)
    return { text: tail.text, truncated: size > maxBytes }
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Launch-message lines (reference §9.5 step 5, pointing at our tools). @category formatting */
export const launchMessage = (entry: { readonly id: string; readonly pid?: number | undefined; readonly outputPath: string; readonly statusPath: string }): string =>
  [
    "Background shell started.",
    `id: ${entry.id}`,
    ...(entry.pid !== undefined ? [`pid: ${entry.pid}`] : []),
    `output file: ${entry.outputPath}`,
    `status file: ${entry.statusPath}`,
    "To check whether this process is still running, Read the status file (status: running|completed|failed|cancelled). Do NOT infer liveness from the output file: programs often block-buffer stdout when not attached to a TTY, so an empty output file is normal while the process is alive (for live output, re-run with e.g. `python -u` or `stdbuf -oL`).",
    `To inspect: read the output file directly to view the captured output. To stop it, call task_stop with task_id "${entry.id}"; to answer a prompt or drive a REPL, call send_message with task_id "${entry.id}" (the message is written to its stdin followed by a newline). A <task-notification> arrives when it finishes.`
  ].join("\n")
