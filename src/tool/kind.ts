/**
 * What a tool does, in the reference's ten kinds, and the two sets the scheduler and the policy
 * derive from it.
 *
 * @since 0.1.0
 */

/** The kinds of tool, with their wire values. @category models */
export const Kind = {
  Read: "read",
  Edit: "edit",
  Delete: "delete",
  Move: "move",
  Search: "search",
  Execute: "execute",
  Think: "think",
  Fetch: "fetch",
  Agent: "agent",
  Other: "other"
} as const

/** One kind's wire value. @category models */
export type Kind = typeof Kind[keyof typeof Kind]

/** Kinds that change the world: denied in `plan` mode. @category constants */
export const MUTATOR_KINDS: ReadonlySet<Kind> = new Set<Kind>([Kind.Edit, Kind.Delete, Kind.Move, Kind.Execute])

/**
 * Kinds whose calls may run in parallel with each other.
 *
 * Think is deliberately absent: some Think tools write to disk (`todo_write` replaces a file), so two of
 * them in one batch must run in order.
 *
 * @category constants
 */
export const CONCURRENCY_SAFE_KINDS: ReadonlySet<Kind> = new Set<Kind>([Kind.Read, Kind.Search, Kind.Fetch])

/** True for kinds that never change anything (used for MCP `readOnlyHint`). @category predicates */
export const isReadOnlyKind = (kind: Kind): boolean => CONCURRENCY_SAFE_KINDS.has(kind)
