/**
 * The declaration of `run_shell_command`: what a model is shown (the description is
 * runShellCommand.md). The behaviour is in runShellCommand.ts, imported on the tool's first call;
 * an embedder may replace it and keep this declaration (see `BuiltinTools.override`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind } from "../../tool/index.js"

/** The params of `run_shell_command`. @category schemas */
export const RunShellCommandParams = Schema.Struct({
  command: Schema.String.annotate({ description: "Exact bash command to execute as `bash -c <command>`" }),
  is_background: Schema.optionalKey(
    Schema.Boolean.annotate({
      description:
        "Run in the background (default false): for dev servers, watchers and other processes that keep running. Returns at once with an id, an output file and a status file."
    })
  ),
  timeout: Schema.optionalKey(
    Schema.Finite.annotate({ description: "Timeout in milliseconds for a foreground command (default 120000, max 600000)." })
  ),
  description: Schema.optionalKey(
    Schema.String.annotate({ description: "Brief description of the command for the user (a few words)." })
  ),
  directory: Schema.optionalKey(
    Schema.String.annotate({
      description: "Absolute path of an existing directory inside the workspace to run the command in (default: the project root)."
    })
  ),
  sandbox: Schema.optionalKey(
    Schema.Boolean.annotate({
      description:
        "false: run this one command outside the command sandbox. Only when a sandboxed run was blocked (\"blocked by the sandbox: …\") and the command really needs that access; a person must approve it every time."
    })
  )
})

/** The declaration of `run_shell_command`. @category declarations */
export const runShellCommandDeclaration = declareTool({
  name: "run_shell_command",
  displayName: "Shell",
  kind: Kind.Execute,
  maxOutputChars: 30_000,
  truncateKeep: "both",
  description: descriptionFile(import.meta.url, "runShellCommand.md"),
  params: RunShellCommandParams
})
