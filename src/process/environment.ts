/**
 * The environment policy of the processes toolwright starts for commands: the environment is
 * built, not inherited. A command sees a short allow-list of our variables (search path, home,
 * locale, terminal, user, time zone, proxies, …) plus the names the user allowed; a name that
 * looks like a secret (`*_TOKEN`, `*_KEY`, `*SECRET*`, `*PASSWORD*`, …) is dropped even when a
 * wildcard allows it, unless it is named exactly.
 *
 * @since 0.1.0
 */

/** Names (or `PREFIX*` wildcards) every command may inherit. @category constants */
export const DEFAULT_ENV_ALLOW: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TERM",
  "COLORTERM",
  "TZ",
  "TMPDIR",
  "PWD",
  "EDITOR",
  "VISUAL",
  "NO_COLOR",
  "FORCE_COLOR",
  "DISPLAY",
  "XDG_*",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR"
]

/** Name patterns that look like secrets (matched case-insensitively). @category constants */
export const SECRET_NAME_PATTERNS: ReadonlyArray<RegExp> = [
  /_TOKEN$/i,
  /^TOKEN$/i,
  /_KEY$/i,
  /^KEY$/i,
  /_KEYS$/i,
  /SECRET/i,
  /PASSWORD/i,
  /PASSWD/i,
  /_PASS$/i,
  /CREDENTIAL/i,
  /_AUTH$/i,
  /^AUTH_/i,
  /_PAT$/i,
  /SESSION_ID$/i,
  /COOKIE/i,
  /PRIVATE/i
]

/** Whether a variable's name looks like it holds a secret. @category predicates */
export const looksSecret = (name: string): boolean => SECRET_NAME_PATTERNS.some((re) => re.test(name))

const matchesAllowed = (pattern: string, name: string): boolean =>
  pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : pattern === name

/** What a command's environment is built from. @category models */
export interface EnvironmentPolicy {
  /** Names or `PREFIX*` wildcards allowed besides {@link DEFAULT_ENV_ALLOW}. */
  readonly allow?: ReadonlyArray<string> | undefined
}

/**
 * The variables of `source` a command may see: allowed by the default list or the policy, and,
 * when they look like secrets, named exactly in the policy. Exported shell functions
 * (`BASH_FUNC_…`, values starting with `()`) never pass.
 *
 * @category constructors
 */
export const inheritedEnvironment = (
  source: Readonly<Record<string, string | undefined>>,
  policy: EnvironmentPolicy = {},
  /** Decisions by name already made under the same policy (a host keeps one: a command's start then tests no patterns). */
  decided?: Map<string, boolean>
): Record<string, string> => {
  const extra = policy.allow ?? []
  const out: Record<string, string> = {}
  const passes = (name: string): boolean => {
    if (extra.includes(name)) return true
    const allowed = DEFAULT_ENV_ALLOW.some((p) => matchesAllowed(p, name)) || extra.some((p) => matchesAllowed(p, name))
    return allowed && !looksSecret(name)
  }
  // Names first, values only of the names that pass: each read of `process.env` goes through the
  // C++ environment (most of the inherited environment is dropped, its values need not be read).
  for (const name of Object.keys(source)) {
    if (name.startsWith("BASH_FUNC_")) continue
    let pass = decided?.get(name)
    if (pass === undefined) {
      pass = passes(name)
      decided?.set(name, pass)
    }
    if (!pass) continue
    const value = source[name]
    if (value !== undefined && !value.startsWith("()")) out[name] = value
  }
  return out
}

/** Splits a list given in one variable or flag value (commas or the path delimiter). @category parsing */
export const splitList = (value: string | undefined): Array<string> =>
  value === undefined ? [] : value.split(/[,:]/).map((s) => s.trim()).filter((s) => s.length > 0)
