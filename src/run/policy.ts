/**
 * The permission policy: an invocation's default permission, combined with the user's rules and
 * the approval mode, gives `allow`, `ask` or `deny`.
 *
 * Rules look like `run_shell_command(git status*)`, `edit(src/**)` or `mcp__github__*`. The part in
 * parentheses matches, for a tool with path params, the call's locations: the real paths the tool
 * itself resolved and will touch (as globs, against the path relative to the first root and the
 * absolute path), so every spelling of one file (escapes, `./`, `..`, a symlink to it) gets one
 * decision. For other tools it matches the classifier input (the command, for the shell). An ask or
 * deny rule applies when any location matches, an allow rule only when all do. Deny beats ask beats
 * allow; a deny holds even in `yolo`.
 *
 * @since 0.1.0
 */
import * as nodePath from "node:path"
import { Kind, MUTATOR_KINDS, type Permission, type ToolInfo } from "../tool/index.js"
import { matchesGlob } from "./pattern.js"

/** How much the user is asked. @category models */
export type ApprovalMode = "plan" | "default" | "auto-edit" | "yolo"

/** The approval modes, in order of trust. @category constants */
export const APPROVAL_MODES: ReadonlyArray<ApprovalMode> = ["plan", "default", "auto-edit", "yolo"]

/** A permission rule as a user writes it. @category models */
export interface PermissionRule {
  readonly decision: Permission
  /** `tool`, `tool(specifier)`, with `*` wildcards in either part. */
  readonly pattern: string
}

/** Everything the policy needs to know about a call. @category models */
export interface PolicyInput {
  readonly tool: Pick<ToolInfo, "name" | "kind">
  readonly defaultPermission: Permission
  /** The call's locations (real paths it reads or writes), for a tool with path params; else empty. */
  readonly paths: ReadonlyArray<string>
  /** What the tool exposes for matching when it has no path params (the shell's command). */
  readonly subject: string
  /**
   * The parts of the subject (the shell's simple commands): an allow rule must match every part,
   * an ask or deny rule any part (or the whole subject).
   */
  readonly subjects?: ReadonlyArray<string> | undefined
}

/** The policy's answer, with the reason when it is not the default. @category models */
export interface PolicyDecision {
  readonly permission: Permission
  readonly reason: "default" | "rule" | "mode" | "session"
  readonly rule?: string | undefined
}

const parseRule = (pattern: string): { readonly tool: string; readonly specifier: string | undefined } => {
  const open = pattern.indexOf("(")
  if (open >= 0 && pattern.endsWith(")")) {
    return { tool: pattern.slice(0, open).trim(), specifier: pattern.slice(open + 1, -1).trim() }
  }
  return { tool: pattern.trim(), specifier: undefined }
}

/** Checks a rule pattern; returns a message when it cannot be parsed. @category validation */
export const validateRule = (pattern: string): string | undefined => {
  const { tool, specifier } = parseRule(pattern)
  if (tool.length === 0) return `Permission rule "${pattern}" has no tool name.`
  const count = (c: string) => pattern.split(c).length - 1
  if (/[()]/.test(tool) || count("(") !== count(")")) return `Permission rule "${pattern}" has unbalanced parentheses; write tool(specifier).`
  if (specifier !== undefined && specifier.length === 0) return `Permission rule "${pattern}" has an empty specifier.`
  return undefined
}

/** True when the rule applies to the call. @category predicates */
export const ruleMatches = (rule: PermissionRule, input: PolicyInput, root: string | undefined): boolean => {
  const { tool, specifier } = parseRule(rule.pattern)
  if (!matchesGlob(tool, input.tool.name, false)) return false
  if (specifier === undefined) return true
  if (input.paths.length > 0) {
    const matches = (abs: string) => {
      const rel = root !== undefined ? nodePath.relative(root, abs) : abs
      return matchesGlob(specifier, abs, true) || (!rel.startsWith("..") && matchesGlob(specifier, rel, true))
    }
    return rule.decision === "allow" ? input.paths.every(matches) : input.paths.some(matches)
  }
  const parts = input.subjects !== undefined && input.subjects.length > 0 ? input.subjects : [input.subject]
  if (rule.decision === "allow") return parts.every((part) => matchesGlob(specifier, part, false))
  return matchesGlob(specifier, input.subject, false) || parts.some((part) => matchesGlob(specifier, part, false))
}

/**
 * Decides a call's permission.
 *
 * @category decisions
 */
export const decide = (
  input: PolicyInput,
  options: { readonly mode: ApprovalMode; readonly rules: ReadonlyArray<PermissionRule>; readonly root?: string | undefined }
): PolicyDecision => {
  const matching = options.rules.filter((rule) => ruleMatches(rule, input, options.root))
  const deny = matching.find((r) => r.decision === "deny")
  if (deny) return { permission: "deny", reason: "rule", rule: deny.pattern }
  if (input.defaultPermission === "deny") return { permission: "deny", reason: "default" }
  if (options.mode === "plan" && MUTATOR_KINDS.has(input.tool.kind)) return { permission: "deny", reason: "mode" }
  const ask = matching.find((r) => r.decision === "ask")
  const allow = matching.find((r) => r.decision === "allow")
  let decision: PolicyDecision = ask
    ? { permission: "ask", reason: "rule", rule: ask.pattern }
    : allow
    ? { permission: "allow", reason: "rule", rule: allow.pattern }
    : { permission: input.defaultPermission, reason: "default" }
  if (decision.permission === "ask") {
    if (options.mode === "yolo") decision = { permission: "allow", reason: "mode" }
    else if (options.mode === "auto-edit" && input.tool.kind === Kind.Edit) decision = { permission: "allow", reason: "mode" }
  }
  return decision
}
