/**
 * Which addresses `web_fetch` may connect to. Every address a host resolves to is checked against
 * the special-purpose ranges (loopback, private, link-local with the cloud metadata services,
 * unique-local, carrier-grade NAT, multicast, reserved, IPv4-mapped IPv6); a host is refused when
 * any of its addresses is in one of them, unless the allow-list names the host or the address.
 * The connection then goes to the address that was checked, never to a second resolution.
 *
 * @since 0.1.0
 */
import * as dns from "node:dns"
import * as net from "node:net"
import * as Effect from "effect/Effect"
import { FetchBlockedAddress, FetchNetworkError } from "../tool/index.js"

/** An address a request connects to. @category models */
export interface CheckedAddress {
  readonly address: string
  readonly family: 4 | 6
}

interface Range {
  readonly network: string
  readonly prefix: number
  readonly type: "ipv4" | "ipv6"
  readonly label: string
}

const v4 = (network: string, prefix: number, label: string): Range => ({ network, prefix, type: "ipv4", label })
const v6 = (network: string, prefix: number, label: string): Range => ({ network, prefix, type: "ipv6", label })

/** The ranges refused by default (IANA special-purpose registries), each with what it is. @category constants */
export const BLOCKED_RANGES: ReadonlyArray<Range> = [
  v4("0.0.0.0", 8, "the unspecified \"this network\" range"),
  v4("10.0.0.0", 8, "a private address"),
  v4("100.64.0.0", 10, "a carrier-grade NAT (shared) address"),
  v4("127.0.0.0", 8, "a loopback address"),
  v4("169.254.0.0", 16, "a link-local address (where cloud metadata services live)"),
  v4("172.16.0.0", 12, "a private address"),
  v4("192.0.0.0", 24, "an IETF protocol assignment address"),
  v4("192.0.2.0", 24, "a documentation address"),
  v4("192.168.0.0", 16, "a private address"),
  v4("198.18.0.0", 15, "a benchmarking address"),
  v4("198.51.100.0", 24, "a documentation address"),
  v4("203.0.113.0", 24, "a documentation address"),
  v4("224.0.0.0", 4, "a multicast address"),
  v4("240.0.0.0", 4, "a reserved or broadcast address"),
  v6("::", 128, "the unspecified address"),
  v6("::1", 128, "a loopback address"),
  v6("::ffff:0:0", 96, "an IPv4-mapped address"),
  v6("64:ff9b:1::", 48, "a local-use NAT64 address"),
  v6("100::", 64, "a discard-only address"),
  v6("2001:db8::", 32, "a documentation address"),
  v6("fc00::", 7, "a unique-local (private) address"),
  v6("fe80::", 10, "a link-local address"),
  v6("fec0::", 10, "a site-local address"),
  v6("ff00::", 8, "a multicast address")
]

const typeOf = (address: string): "ipv4" | "ipv6" | undefined => {
  const family = net.isIP(address)
  return family === 4 ? "ipv4" : family === 6 ? "ipv6" : undefined
}

// An IPv4 address is only checked against IPv4 ranges: BlockList would otherwise match it against
// `::ffff:0:0/96` (it compares IPv4 as mapped IPv6). An IPv6 address is checked against both, so
// `::ffff:7f00:1` is found as the loopback address it is.
const rangeContains = (range: Range, address: string, type: "ipv4" | "ipv6"): boolean => {
  if (type === "ipv4" && range.type === "ipv6") return false
  const list = new net.BlockList()
  list.addSubnet(range.network, range.prefix, range.type)
  return list.check(address, type)
}

/** What the address is when it is in a refused range, else undefined (a public address). @category predicates */
export const blockedRangeOf = (address: string): string | undefined => {
  const type = typeOf(address)
  if (type === undefined) return "not an IP address"
  return BLOCKED_RANGES.find((range) => rangeContains(range, address, type))?.label
}

/** `[::1]` → `::1`; host names lower-cased. @category constructors */
export const bareHost = (hostname: string): string =>
  (hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname).toLowerCase()

const entryAllowsAddress = (entry: string, address: string): boolean => {
  const type = typeOf(address)
  if (type === undefined) return false
  const slash = entry.indexOf("/")
  if (slash < 0) {
    const entryType = typeOf(entry)
    if (entryType === undefined || (type === "ipv4" && entryType === "ipv6")) return false
    const list = new net.BlockList()
    list.addAddress(entry, entryType)
    return list.check(address, type)
  }
  const network = entry.slice(0, slash)
  const prefix = Number(entry.slice(slash + 1))
  const networkType = typeOf(network)
  if (networkType === undefined || !Number.isInteger(prefix)) return false
  if (prefix < 0 || prefix > (networkType === "ipv4" ? 32 : 128)) return false
  return rangeContains({ network, prefix, type: networkType, label: "" }, address, type)
}

/**
 * True when the allow-list lets this host (as written in the URL) reach this address although it
 * is private: the list names the host, the address, or a range holding it.
 *
 * @category predicates
 */
export const isAllowed = (allow: ReadonlyArray<string>, host: string, address: string): boolean =>
  allow.some((raw) => {
    const entry = bareHost(raw.trim())
    return entry === host || entryAllowsAddress(entry, address)
  })

const lookupAll = (host: string): Effect.Effect<ReadonlyArray<CheckedAddress>, FetchNetworkError> =>
  Effect.tryPromise({
    try: () => dns.promises.lookup(host, { all: true, verbatim: true }),
    catch: (cause) => {
      const code = (cause as { readonly code?: unknown }).code
      return new FetchNetworkError({
        message: `Could not resolve the host "${host}"${typeof code === "string" ? ` (${code})` : ""}. ` +
          "Check the host name in the URL; if it is right, the site may be down or unreachable from here.",
        display: `DNS lookup of ${host} failed`
      })
    }
  }).pipe(Effect.map((found) => found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 } as const))))

/**
 * Resolves a URL's host once and checks every address it has; the addresses to connect to (all
 * checked, in the resolver's order).
 * An IP literal is checked as is. Fails with `fetch_blocked_address` naming the address and its
 * range when the host reaches a refused range and the allow-list does not name it.
 *
 * @category constructors
 */
export const resolveChecked = Effect.fnUntraced(function*(hostname: string, allow: ReadonlyArray<string>) {
  const host = bareHost(hostname)
  const literal = typeOf(host)
  const addresses: ReadonlyArray<CheckedAddress> = literal !== undefined
    ? [{ address: host, family: literal === "ipv4" ? 4 : 6 }]
    : yield* lookupAll(host)
  if (addresses.length === 0) {
    return yield* new FetchNetworkError({
      message: `The host "${host}" has no address. Check the host name in the URL.`,
      display: `${host} has no address`
    })
  }
  for (const { address } of addresses) {
    const range = blockedRangeOf(address)
    if (range !== undefined && !isAllowed(allow, host, address)) {
      const via = literal !== undefined ? "" : ` (the host "${host}" resolves to it)`
      return yield* new FetchBlockedAddress({
        message: `Refused to fetch from ${address}${via}: it is ${range}. web_fetch only reaches public addresses, ` +
          "so a page cannot make it read the local machine, the local network or a cloud metadata service. " +
          "Do not retry with another spelling of the address; fetch a public URL instead. For local development a user can allow " +
          "a host with --web-fetch-allow (or TOOLWRIGHT_WEB_FETCH_ALLOW).",
        display: `Blocked ${host} → ${address} (${range})`
      })
    }
  }
  return addresses
})
