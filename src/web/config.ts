/**
 * The web room's settings: the caps of one `web_fetch` (redirects, bytes, time, and the HTML bytes
 * and time of its Markdown conversion) and the allow-list of hosts and addresses that may be
 * private (for local development). A session reads them once, from its `webFetch` option, else
 * the `TOOLWRIGHT_WEB_FETCH_*` environment, else the defaults.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"

/** Redirects followed before `fetch_too_many_redirects`. @category constants */
export const WEB_FETCH_MAX_REDIRECTS = 5
/** Largest response body, in bytes, before `fetch_too_large`. @category constants */
export const WEB_FETCH_MAX_BYTES = 10 * 1024 * 1024
/** Time for the whole fetch (every redirect included) before `fetch_timeout`. @category constants */
export const WEB_FETCH_TIMEOUT_MS = 30_000
/** HTML bytes converted to Markdown; a longer page is cut there first (and the result says so). @category constants */
export const WEB_FETCH_CONVERT_MAX_BYTES = 2 * 1024 * 1024
/** Time to convert one page's HTML to Markdown before `fetch_conversion_timeout`. @category constants */
export const WEB_FETCH_CONVERT_TIMEOUT_MS = 20_000
/** The User-Agent sent with every request. @category constants */
export const USER_AGENT = "toolwright-web-fetch/0.1 (+https://github.com/toolwright)"

/** Every setting of `web_fetch`. @category models */
export interface WebFetchSettings {
  /**
   * Hosts and addresses that may be private: a host name as written in the URL (`localhost`), an
   * IP address (`127.0.0.1`, `::1`) or a CIDR range (`10.0.0.0/8`). Empty by default: every
   * loopback, private, link-local and metadata address is refused.
   */
  readonly allow: ReadonlyArray<string>
  readonly maxRedirects: number
  readonly maxBytes: number
  readonly timeoutMs: number
  /** HTML bytes given to the Markdown conversion; the rest of a longer page is cut off. */
  readonly convertMaxBytes: number
  /** Time for the HTML → Markdown conversion (in a worker thread) before `fetch_conversion_timeout`. */
  readonly convertTimeoutMs: number
}

/** What a session may set; unset fields come from the environment, else the defaults. @category models */
export interface WebFetchOptions {
  readonly allow?: ReadonlyArray<string> | undefined
  readonly maxRedirects?: number | undefined
  readonly maxBytes?: number | undefined
  readonly timeoutMs?: number | undefined
  readonly convertMaxBytes?: number | undefined
  readonly convertTimeoutMs?: number | undefined
}

/** The defaults. @category constants */
export const DEFAULT_WEB_FETCH_SETTINGS: WebFetchSettings = {
  allow: [],
  maxRedirects: WEB_FETCH_MAX_REDIRECTS,
  maxBytes: WEB_FETCH_MAX_BYTES,
  timeoutMs: WEB_FETCH_TIMEOUT_MS,
  convertMaxBytes: WEB_FETCH_CONVERT_MAX_BYTES,
  convertTimeoutMs: WEB_FETCH_CONVERT_TIMEOUT_MS
}

/**
 * The settings in effect for a session's `web_fetch`. A Reference: the defaults unless the session
 * layer provides the resolved ones (see {@link resolveWebFetchSettings}).
 *
 * @category references
 */
export const WebFetchConfig = Context.Reference<WebFetchSettings>("toolwright/web/WebFetchConfig", {
  defaultValue: () => DEFAULT_WEB_FETCH_SETTINGS
})

/** `a, b ,c` → `["a", "b", "c"]` (empty parts dropped). @category parsing */
export const splitAllowList = (value: string): ReadonlyArray<string> =>
  value.split(",").map((part) => part.trim()).filter((part) => part.length > 0)

const positiveInt = (name: string, raw: string | undefined): number | string | undefined => {
  if (raw === undefined || raw.trim() === "") return undefined
  const n = Number(raw)
  return Number.isSafeInteger(n) && n >= 0 ? n : `${name} must be a whole number of 0 or more, not "${raw}".`
}

/**
 * The settings from a session's options over the environment over the defaults, or the problem
 * (a malformed number) to report at start-up.
 *
 * @category constructors
 */
export const resolveWebFetchSettings = (
  options: WebFetchOptions,
  env: Readonly<Record<string, string | undefined>>
): WebFetchSettings | { readonly problem: string } => {
  const fromEnv = {
    maxRedirects: positiveInt("TOOLWRIGHT_WEB_FETCH_MAX_REDIRECTS", env["TOOLWRIGHT_WEB_FETCH_MAX_REDIRECTS"]),
    maxBytes: positiveInt("TOOLWRIGHT_WEB_FETCH_MAX_BYTES", env["TOOLWRIGHT_WEB_FETCH_MAX_BYTES"]),
    timeoutMs: positiveInt("TOOLWRIGHT_WEB_FETCH_TIMEOUT_MS", env["TOOLWRIGHT_WEB_FETCH_TIMEOUT_MS"]),
    convertMaxBytes: positiveInt("TOOLWRIGHT_WEB_FETCH_CONVERT_MAX_BYTES", env["TOOLWRIGHT_WEB_FETCH_CONVERT_MAX_BYTES"]),
    convertTimeoutMs: positiveInt("TOOLWRIGHT_WEB_FETCH_CONVERT_TIMEOUT_MS", env["TOOLWRIGHT_WEB_FETCH_CONVERT_TIMEOUT_MS"])
  }
  for (const value of Object.values(fromEnv)) if (typeof value === "string") return { problem: value }
  const pick = (key: keyof typeof fromEnv): number =>
    options[key] ?? (fromEnv[key] as number | undefined) ?? DEFAULT_WEB_FETCH_SETTINGS[key]
  const envAllow = env["TOOLWRIGHT_WEB_FETCH_ALLOW"]
  return {
    allow: options.allow ?? (envAllow !== undefined ? splitAllowList(envAllow) : []),
    maxRedirects: pick("maxRedirects"),
    maxBytes: pick("maxBytes"),
    timeoutMs: pick("timeoutMs"),
    convertMaxBytes: pick("convertMaxBytes"),
    convertTimeoutMs: pick("convertTimeoutMs")
  }
}
