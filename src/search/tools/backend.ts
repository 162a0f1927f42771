/**
 * Which grep backend `grep_search` uses: chosen at run time (`auto`), or forced by the tool's
 * constructor option or the `TOOLWRIGHT_GREP_BACKEND` environment variable.
 *
 * @since 0.1.0
 */
import type { GrepBackendName } from "../grep/types.js"

/** The environment variable that forces a grep backend. @category constants */
export const GREP_BACKEND_ENV_VAR = "TOOLWRIGHT_GREP_BACKEND"

/** The values `TOOLWRIGHT_GREP_BACKEND` accepts (`auto`: ripgrep, else git grep in a work tree, else grep, else JS). @category constants */
export const GREP_BACKEND_CHOICES: ReadonlyArray<GrepBackendName | "auto"> = ["auto", "ripgrep", "git-grep", "grep", "js"]

/** A backend choice: a forced backend, run-time selection, or an invalid setting to report on every call. @category models */
export type GrepBackendChoice =
  | { readonly _tag: "Auto" }
  | { readonly _tag: "Forced"; readonly backend: GrepBackendName }
  | { readonly _tag: "Invalid"; readonly message: string }

const isChoice = (value: string): value is GrepBackendName | "auto" => (GREP_BACKEND_CHOICES as ReadonlyArray<string>).includes(value)

/**
 * The backend choice: the constructor option wins, then the environment variable (blank = unset),
 * then run-time selection. An unknown value is kept as `Invalid`, so every call says what is wrong.
 * @category constructors
 */
export const grepBackendChoice = (
  option: GrepBackendName | "auto" | undefined,
  env: Readonly<Record<string, string | undefined>>
): GrepBackendChoice => {
  const [value, source] = option !== undefined
    ? [option as string, "the grep_search backend option"]
    : [env[GREP_BACKEND_ENV_VAR]?.trim() ?? "", GREP_BACKEND_ENV_VAR]
  if (value === "" || value === "auto") return { _tag: "Auto" }
  if (isChoice(value) && value !== "auto") return { _tag: "Forced", backend: value }
  return {
    _tag: "Invalid",
    message: `${source} is set to ${JSON.stringify(value)}, which is not a grep backend (expected one of ` +
      `${GREP_BACKEND_CHOICES.join(", ")}). grep_search cannot run until it is fixed; tell the user, and use ` +
      `glob or read_file meanwhile.`
  }
}
