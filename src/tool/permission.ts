/**
 * Permissions and the confirmation a call shows before it runs.
 *
 * @since 0.1.0
 */

/** A call's permission: run it, ask first, or refuse. @category models */
export type Permission = "allow" | "ask" | "deny"

/** The parameters a person may amend before approving a call. @category models */
export type AmendableParam = "new_string" | "content" | "command"

/**
 * A parameter of the call that the person asked may rewrite before approving it (`edit`'s
 * `new_string`, `write_file`'s `content`, `run_shell_command`'s `command`); `proposal` is the
 * model's value.
 *
 * @category models
 */
export interface Amendable {
  readonly param: AmendableParam
  readonly proposal: string
}

/**
 * A person's rewrite of an {@link Amendable} parameter, carried by an approving outcome. The call is
 * built again with it and goes through the tool's own validation, planning and the policy; an
 * amendment never approves what the policy denies.
 *
 * @category models
 */
export interface Amendment {
  readonly param: AmendableParam
  readonly value: string
}

/**
 * An amendment as it reaches the tool's `execute`: the model's proposal, the person's value, and
 * for file tools the file text the proposal would have written (from the preview that was shown),
 * so the tool can report which lines the model wrote and which the person changed.
 *
 * @category models
 */
export interface AppliedAmendment {
  readonly param: AmendableParam
  readonly proposal: string
  readonly value: string
  readonly proposedContent?: string | undefined
}

/** An edit preview: the diff a person approves. @category models */
export interface EditConfirmation {
  readonly type: "edit"
  readonly title: string
  readonly fileName: string
  readonly filePath: string
  readonly fileDiff: string
  readonly originalContent: string | null
  readonly newContent: string
  /** Set when the person may rewrite a parameter (the edit's `new_string`, the write's `content`). */
  readonly amendable?: Amendable | undefined
}

/** A command about to run. @category models */
export interface ExecConfirmation {
  readonly type: "exec"
  readonly title: string
  readonly command: string
  readonly rootCommand: string
  /** What a person should know before approving (e.g. the command substitutes commands). */
  readonly warnings?: ReadonlyArray<string> | undefined
  /** Set when the person may rewrite the command before it runs. */
  readonly amendable?: Amendable | undefined
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
 * the choices for `ask_user_question`; `amended` the person's rewrite of the call's amendable
 * parameter (what runs instead of the model's proposal).
 *
 * @category models
 */
export type ConfirmationOutcome =
  | {
    readonly _tag: "proceed_once"
    readonly answers?: Readonly<Record<string, string>> | undefined
    readonly amended?: Amendment | undefined
  }
  | { readonly _tag: "proceed_always"; readonly amended?: Amendment | undefined }
  | {
    readonly _tag: "cancel"
    readonly reason?: string | undefined
    /** No person could be asked (a host without elicitation, no terminal): nobody declined. */
    readonly unasked?: boolean | undefined
  }
