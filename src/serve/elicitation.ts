/**
 * The serve door's approver: asks the user through MCP elicitation when the host supports it,
 * otherwise answers with the configured fallback.
 *
 * @since 0.1.0
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import * as Effect from "effect/Effect"
import { type ApprovalRequest, Approver } from "../run/index.js"
import type { AskUserQuestionConfirmation, ConfirmationOutcome } from "../tool/index.js"

const MAX_PREVIEW_CHARS = 20_000

/** A proposal longer than this is not offered for editing in the form (the form would carry it whole). @category constants */
export const MAX_AMENDABLE_CHARS = 100_000

/** The approval form: the decision, and the amendable parameter as an editable field holding the proposal. @category converters */
export const approvalForm = (request: ApprovalRequest): QuestionForm => {
  const amendable = request.details.type === "edit" || request.details.type === "exec" ? request.details.amendable : undefined
  const editable = amendable !== undefined && amendable.proposal.length <= MAX_AMENDABLE_CHARS ? amendable : undefined
  return {
    message: approvalMessage(request),
    requestedSchema: {
      type: "object" as const,
      properties: {
        decision: {
          type: "string" as const,
          title: "Allow this call?",
          enum: ["proceed_once", "proceed_always", "cancel"],
          enumNames: ["Allow once", `Always allow ${request.tool.name} in this session`, "Deny"]
        },
        ...(editable === undefined ? {} : {
          [editable.param]: {
            type: "string" as const,
            title: `${editable.param} (edit it to change what is applied)`,
            description: `The model's proposed ${editable.param}. Change it before allowing to apply your version instead; ` +
              `it goes through the same checks.`,
            default: editable.proposal
          }
        })
      },
      required: ["decision"]
    }
  }
}

/** The decision from a submitted approval form; a changed amendable field is the amendment. @category converters */
export const outcomeFromForm = (request: ApprovalRequest, content: Readonly<Record<string, unknown>> | undefined): ConfirmationOutcome => {
  const decision = content?.["decision"]
  if (decision !== "proceed_once" && decision !== "proceed_always") return { _tag: "cancel", reason: "the user denied it" }
  const amendable = request.details.type === "edit" || request.details.type === "exec" ? request.details.amendable : undefined
  const value = amendable === undefined ? undefined : content?.[amendable.param]
  return typeof value === "string" && value !== amendable!.proposal
    ? { _tag: decision, amended: { param: amendable!.param, value } }
    : { _tag: decision }
}

/** The text a person sees for a request. @category converters */
export const approvalMessage = (request: ApprovalRequest): string => {
  const d = request.details
  const touches = request.locations !== undefined && request.locations.length > 0 ? `\nTouches: ${request.locations.join(", ")}` : ""
  const head = `${d.title}\n\n${request.description}${touches}`
  switch (d.type) {
    case "edit": {
      const diff = d.fileDiff.length > MAX_PREVIEW_CHARS ? `${d.fileDiff.slice(0, MAX_PREVIEW_CHARS)}\n… (diff cut)` : d.fileDiff
      return `${head}\n\n${diff}`
    }
    case "exec":
      return `${head}\n\n$ ${d.command}${(d.warnings ?? []).map((w) => `\n⚠ ${w}`).join("")}`
    case "mcp":
      return `${head}\n\nTool ${d.toolName} on MCP server ${d.serverName}`
    case "info":
      return `${head}${d.prompt !== request.description ? `\n\n${d.prompt}` : ""}`
    case "ask_user_question":
      return `${head}\n\n${d.questions.map((q) => q.question).join("\n")}`
  }
}

/** An elicitation form: the message and the requested schema (flat, one field per question or choice). @category models */
export interface QuestionForm {
  readonly message: string
  readonly requestedSchema: {
    readonly type: "object"
    readonly properties: Record<string, Record<string, unknown>>
    readonly required: Array<string>
  }
}

/**
 * The elicitation form for `ask_user_question`: one choice field per question, keyed by the
 * question's index ("0", "1", …); a multiSelect question is an array of choices. Option
 * descriptions go in the field's description, so every client shows them.
 *
 * @category converters
 */
export const questionForm = (details: AskUserQuestionConfirmation): QuestionForm => {
  const properties: Record<string, Record<string, unknown>> = {}
  details.questions.forEach((q, index) => {
    const labels = q.options.map((o) => o.label)
    const description = `${q.question}\n${q.options.map((o) => `- ${o.label}: ${o.description}`).join("\n")}` +
      (q.multiSelect ? "\n(Select one or more.)" : "")
    properties[String(index)] = q.multiSelect
      ? { type: "array", title: q.header, description, minItems: 1, items: { type: "string", enum: labels } }
      : { type: "string", title: q.header, description, enum: labels }
  })
  const listed = details.questions.map((q, i) => `${i + 1}. ${q.header}: ${q.question}`).join("\n")
  return {
    message: `${details.title}\n\n${listed}`,
    requestedSchema: { type: "object", properties, required: Object.keys(properties) }
  }
}

/**
 * The answers keyed by question index from a submitted form: a choice as is, several choices
 * (an array, or a comma list from a client that sends text) joined with ", ".
 *
 * @category converters
 */
export const answersFromForm = (
  details: AskUserQuestionConfirmation,
  content: Readonly<Record<string, unknown>> | undefined
): Record<string, string> => {
  const answers: Record<string, string> = {}
  details.questions.forEach((q, index) => {
    const value = content?.[String(index)]
    const picked = Array.isArray(value)
      ? value.map(String)
      : typeof value === "string"
      ? (q.multiSelect ? value.split(",") : [value]).map((s) => s.trim()).filter((s) => s.length > 0)
      : []
    if (picked.length > 0) answers[String(index)] = picked.join(", ")
  })
  return answers
}

/**
 * Asks `ask_user_question`'s questions through elicitation. A client without elicitation, or one
 * whose elicitation fails, cannot answer: the outcome carries no answers and the tool reports
 * that it cannot ask. Decline and cancel are the user declining.
 */
const askQuestions = (server: Server | undefined, details: AskUserQuestionConfirmation) =>
  Effect.gen(function*() {
    if (server?.getClientCapabilities()?.elicitation === undefined) return { _tag: "proceed_once" } as ConfirmationOutcome
    const form = questionForm(details)
    const answer = yield* Effect.tryPromise(() => server.elicitInput(form as Parameters<Server["elicitInput"]>[0])).pipe(
      Effect.map((result) => ({ ok: true as const, result })),
      Effect.catch((error) =>
        Effect.as(Effect.logWarning(`toolwright: elicitation of questions failed: ${String(error)}`), { ok: false as const })
      )
    )
    if (!answer.ok) return { _tag: "proceed_once" } as ConfirmationOutcome
    if (answer.result.action !== "accept") return { _tag: "cancel", reason: `the user chose ${answer.result.action}` } as ConfirmationOutcome
    return { _tag: "proceed_once", answers: answersFromForm(details, answer.result.content) } as ConfirmationOutcome
  })

/**
 * An approver over an MCP server: elicitation when the connected client declares it, else the
 * fallback outcome. Questions (`ask_user_question`) are asked through their own form, and never
 * answered by the fallback.
 *
 * @category constructors
 */
export const elicitingApprover = (getServer: () => Server | undefined, fallback: ConfirmationOutcome): Approver["Service"] =>
  Approver.of({
    confirm: (request) =>
      Effect.gen(function*() {
        const server = getServer()
        if (request.details.type === "ask_user_question") return yield* askQuestions(server, request.details)
        if (server?.getClientCapabilities()?.elicitation === undefined) return fallback
        const answer = yield* Effect.tryPromise(() =>
          server!.elicitInput(approvalForm(request) as Parameters<Server["elicitInput"]>[0])
        ).pipe(Effect.catch((error) =>
          Effect.as(
            Effect.logWarning(`toolwright: elicitation failed: ${String(error)}`),
            { action: "cancel" as const, content: undefined }
          )
        ))
        if (answer.action !== "accept") return { _tag: "cancel", reason: `the user chose ${answer.action}` } as ConfirmationOutcome
        return outcomeFromForm(request, answer.content)
      })
  })
