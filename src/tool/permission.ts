/**
 * Permissions and the confirmation a call shows before it runs.
 *
 * @since 0.1.0
 */

/** A call's permission: run it, ask first, or refuse. @category models */
export type Permission = "allow" | "ask" | "deny"

/** An edit preview: the diff a person approves. @category models */
export interface EditConfirmation {
  readonly type: "edit"
  readonly title: string
  readonly fileName: string
  readonly filePath: string
  readonly fileDiff: string
  readonly originalContent: string | null
  readonly newContent: string
}

/** A command about to run. @category models */
export interface ExecConfirmation {
  readonly type: "exec"
  readonly title: string
  readonly command: string
  readonly rootCommand: string
  /** What a person should know before approving (e.g. the command substitutes commands). */
  readonly warnings?: ReadonlyArray<string> | undefined
}

/** A call to an upstream MCP tool. @category models */
export interface McpConfirmation {
  readonly type: "mcp"
  readonly title: string
  readonly serverName: string
  readonly toolName: string
  readonly toolDisplayName: string
}

/** A generic prompt. @category models */
export interface InfoConfirmation {
  readonly type: "info"
  readonly title: string
  readonly prompt: string
  readonly urls?: ReadonlyArray<string> | undefined
}

/** Questions for the user (the answer is the result). @category models */
export interface AskUserQuestionConfirmation {
  readonly type: "ask_user_question"
  readonly title: string
  readonly questions: ReadonlyArray<{
    readonly question: string
    readonly header: string
    readonly options: ReadonlyArray<{ readonly label: string; readonly description: string }>
    readonly multiSelect: boolean
  }>
}

/** What a person is shown before an `ask` call runs. @category models */
export type ConfirmationDetails =
  | EditConfirmation
  | ExecConfirmation
  | McpConfirmation
  | InfoConfirmation
  | AskUserQuestionConfirmation

/**
 * A person's answer. `proceed_always` is remembered for the rest of the session; answers carries
 * the choices for `ask_user_question`.
 *
 * @category models
 */
export type ConfirmationOutcome =
  | { readonly _tag: "proceed_once"; readonly answers?: Readonly<Record<string, string>> | undefined }
  | { readonly _tag: "proceed_always" }
  | {
    readonly _tag: "cancel"
    readonly reason?: string | undefined
    /** No person could be asked (a host without elicitation, no terminal): nobody declined. */
    readonly unasked?: boolean | undefined
  }
