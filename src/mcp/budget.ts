/**
 * The workspace budget on MCP servers (reference §13.5): server slots are reserved by name, a
 * warning fires once when 75% are taken and re-arms only below 37.5%, and in `enforce` mode a
 * server beyond the cap is refused. Pure: the pool keeps the state in a `Ref`.
 *
 * @since 0.1.0
 */
import type { McpBudgetConfig } from "./config.js"
import { MCP_BUDGET_REARM_FRACTION, MCP_BUDGET_WARN_FRACTION } from "./constants.js"

/** Budget state: holders per reserved name, and whether the warning is armed. @category models */
export interface BudgetState {
  readonly reserved: ReadonlyMap<string, number>
  readonly armed: boolean
}

/** What a reservation did. @category models */
export type ReserveOutcome = "reserved" | "already_held" | "refused"

/** The warning that the budget is filling up. @category models */
export interface BudgetWarning {
  readonly _tag: "BudgetWarning"
  readonly reserved: number
  readonly budget: number
  readonly mode: McpBudgetConfig["mode"]
}

/** A fresh budget. @category constructors */
export const initialBudget: BudgetState = { reserved: new Map(), armed: true }

const ratio = (state: BudgetState, budget: McpBudgetConfig): number => state.reserved.size / budget.maxServers

/**
 * Reserves a slot for `name`. Without a budget every server is admitted and nothing is recorded.
 *
 * @category budget
 */
export const tryReserve = (
  state: BudgetState,
  name: string,
  budget: McpBudgetConfig | undefined
): { readonly outcome: ReserveOutcome; readonly state: BudgetState; readonly warning: BudgetWarning | undefined } => {
  if (budget === undefined) return { outcome: "reserved", state, warning: undefined }
  const held = state.reserved.get(name)
  if (held !== undefined) {
    return { outcome: "already_held", state: { ...state, reserved: new Map(state.reserved).set(name, held + 1) }, warning: undefined }
  }
  if (budget.mode === "enforce" && state.reserved.size >= budget.maxServers) {
    return { outcome: "refused", state, warning: undefined }
  }
  const next: BudgetState = { ...state, reserved: new Map(state.reserved).set(name, 1) }
  if (next.armed && ratio(next, budget) >= MCP_BUDGET_WARN_FRACTION) {
    return {
      outcome: "reserved",
      state: { ...next, armed: false },
      warning: { _tag: "BudgetWarning", reserved: next.reserved.size, budget: budget.maxServers, mode: budget.mode }
    }
  }
  return { outcome: "reserved", state: next, warning: undefined }
}

/**
 * Releases one hold on `name`; the slot frees when the last holder releases. The warning re-arms
 * once usage drops below {@link MCP_BUDGET_REARM_FRACTION}.
 *
 * @category budget
 */
export const release = (state: BudgetState, name: string, budget: McpBudgetConfig | undefined): BudgetState => {
  if (budget === undefined) return state
  const held = state.reserved.get(name)
  if (held === undefined) return state
  const reserved = new Map(state.reserved)
  if (held > 1) reserved.set(name, held - 1)
  else reserved.delete(name)
  const next = { ...state, reserved }
  return !next.armed && ratio(next, budget) < MCP_BUDGET_REARM_FRACTION ? { ...next, armed: true } : next
}

/** The model- and person-facing text of a refusal. @category budget */
export const refusedMessage = (names: ReadonlyArray<string>, budget: McpBudgetConfig): string =>
  `The workspace MCP budget of ${budget.maxServers} server${budget.maxServers === 1 ? "" : "s"} is exhausted, so ` +
  `${names.map((n) => `"${n}"`).join(", ")} ${names.length === 1 ? "was" : "were"} not started. ` +
  `Raise "mcpBudget.maxServers" in the MCP config, or disable servers you do not need.`

/** The text of a budget warning. @category budget */
export const warningMessage = (warning: BudgetWarning): string =>
  `${warning.reserved} of ${warning.budget} MCP server slots of this workspace are in use` +
  (warning.mode === "enforce" ? "; servers beyond the budget will be refused." : " (budget in warn mode: nothing is refused).")
