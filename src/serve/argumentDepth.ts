/**
 * The nesting bound on tool arguments, checked at the door before any Schema decoding: decoding
 * (and printing) recurse, so a 50,000-deep object would overflow the stack inside a tool and end as
 * a defect instead of a typed `invalid_tool_params`.
 *
 * @since 0.1.0
 */

/**
 * Deepest nesting of objects and arrays accepted in a call's arguments (the arguments object itself
 * is depth 1). Real tool arguments stay within a handful of levels.
 *
 * @category constants
 */
export const MAX_ARGUMENT_DEPTH = 64

/**
 * Whether `value` nests objects or arrays deeper than `max`; walks without recursion, so any depth
 * is measured safely, and stops at the first path past the bound.
 *
 * @category validation
 */
export const exceedsDepth = (value: unknown, max: number = MAX_ARGUMENT_DEPTH): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (typeof node !== "object" || node === null) continue
    if (depth > max) return true
    const children = Array.isArray(node) ? node : Object.values(node)
    for (const child of children) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}

/**
 * The model-facing message of arguments nested too deep.
 *
 * @category constructors
 */
export const tooDeepMessage = (tool: string, max: number = MAX_ARGUMENT_DEPTH): string =>
  `Invalid parameters for ${tool}: the arguments nest objects or arrays more than ${max} levels deep ` +
  `(MAX_ARGUMENT_DEPTH). Flatten the value: no tool takes arguments that deep.`
