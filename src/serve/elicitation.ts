/**
 * The serve door's approver: asks the user through MCP elicitation when the host supports it,
 * otherwise answers with the configured fallback.
 *
 * @since 0.1.0
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { Effect } from "effect"
import type { ApprovalRequest } from "../run/approver.js"
import { Approver } from "../run/approver.js"
import type { ConfirmationOutcome } from "../tool/permission.js"

const MAX_PREVIEW_CHARS = 20_000

/** The text a person sees for a request. @category converters */
export const approvalMessage = (request: ApprovalRequest): string => {
  const d = request.details
  const head = `${d.title}\n\n${request.description}`
  switch (d.type) {
    case "edit": {
      const diff = d.fileDiff.length > MAX_PREVIEW_CHARS ? `${d.fileDiff.slice(0, MAX_PREVIEW_CHARS)}\n… (diff cut)` : d.fileDiff
      return `${head}\n\n${diff}`
    }
    case "exec":
      return `${head}\n\n$ ${d.command}`
    case "mcp":
      return `${head}\n\nTool ${d.toolName} on MCP server ${d.serverName}`
    case "info":
      return `${head}${d.prompt !== request.description ? `\n\n${d.prompt}` : ""}`
    case "ask_user_question":
      return `${head}\n\n${d.questions.map((q) => q.question).join("\n")}`
  }
}

/**
 * An approver over an MCP server: elicitation when the connected client declares it, else the
 * fallback outcome.
 *
 * @category constructors
 */
export const elicitingApprover = (getServer: () => Server | undefined, fallback: ConfirmationOutcome): Approver["Service"] =>
  Approver.of({
    confirm: (request) =>
      Effect.gen(function*() {
        const server = getServer()
        if (server?.getClientCapabilities()?.elicitation === undefined) return fallback
        const answer = yield* Effect.tryPromise(() =>
          server!.elicitInput({
            message: approvalMessage(request),
            requestedSchema: {
              type: "object",
              properties: {
                decision: {
                  type: "string",
                  title: "Allow this call?",
                  enum: ["proceed_once", "proceed_always", "cancel"],
                  enumNames: ["Allow once", `Always allow ${request.tool.name} in this session`, "Deny"]
                }
              },
              required: ["decision"]
            }
          })
        ).pipe(Effect.catch((error) =>
          Effect.as(
            Effect.logWarning(`toolwright: elicitation failed: ${String(error)}`),
            { action: "cancel" as const, content: undefined }
          )
        ))
        if (answer.action !== "accept") return { _tag: "cancel", reason: `the user chose ${answer.action}` } as ConfirmationOutcome
        const decision = answer.content?.["decision"]
        if (decision === "proceed_once") return { _tag: "proceed_once" } as ConfirmationOutcome
        if (decision === "proceed_always") return { _tag: "proceed_always" } as ConfirmationOutcome
        return { _tag: "cancel", reason: "the user denied it" } as ConfirmationOutcome
      })
  })
