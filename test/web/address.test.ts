/**
 * The address checks, the allow-list, the settings' resolution and the content-type handling of
 * web_fetch, as pure functions (plus one DNS lookup of localhost).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { bareHost, blockedRangeOf, isAllowed, resolveChecked } from "../../src/web/address.js"
import { DEFAULT_WEB_FETCH_SETTINGS, resolveWebFetchSettings, splitAllowList } from "../../src/web/config.js"
import { isTextual, parseContentType } from "../../src/web/convert.js"
import { parseUrl } from "../../src/web/page.js"
import { ruleSubjectOf } from "../../src/web/webFetch.js"

describe("blockedRangeOf", () => {
  it("names the range of every special-purpose address, and passes public ones", () => {
    const blocked: Record<string, string> = {
      "127.0.0.1": "a loopback address",
      "127.255.0.9": "a loopback address",
      "10.20.30.40": "a private address",
      "172.31.255.255": "a private address",
      "192.168.1.1": "a private address",
      "169.254.169.254": "a link-local address (where cloud metadata services live)",
      "100.100.100.200": "a carrier-grade NAT (shared) address",
      "0.0.0.0": "the unspecified \"this network\" range",
      "224.0.0.1": "a multicast address",
      "255.255.255.255": "a reserved or broadcast address",
      "::1": "a loopback address",
      "::": "the unspecified address",
      "::ffff:7f00:1": "a loopback address",
      "::ffff:8.8.8.8": "an IPv4-mapped address",
      "fd00:ec2::254": "a unique-local (private) address",
      "fe80::1": "a link-local address",
      "ff02::1": "a multicast address"
    }
    for (const [address, label] of Object.entries(blocked)) assert.strictEqual(blockedRangeOf(address), label, address)
    for (const address of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111"]) {
      assert.isUndefined(blockedRangeOf(address), address)
    }
    assert.strictEqual(blockedRangeOf("example.com"), "not an IP address")
  })
})

describe("isAllowed", () => {
  it("matches the host as written, an address, or a CIDR range, and nothing more", () => {
    assert.isTrue(isAllowed(["localhost"], "localhost", "127.0.0.1"))
    assert.isTrue(isAllowed(["LocalHost "], "localhost", "::1"))
    assert.isTrue(isAllowed(["127.0.0.1"], "localhost", "127.0.0.1"))
    assert.isFalse(isAllowed(["127.0.0.1"], "localhost", "::1"))
    assert.isTrue(isAllowed(["[::1]"], "::1", "::1"))
    assert.isTrue(isAllowed(["10.0.0.0/8"], "build.internal", "10.9.8.7"))
    assert.isFalse(isAllowed(["10.0.0.0/8"], "build.internal", "192.168.0.1"))
    assert.isFalse(isAllowed(["10.0.0.0/99", "not-an-ip/8"], "x", "10.0.0.1"))
    assert.isFalse(isAllowed([], "localhost", "127.0.0.1"))
    assert.strictEqual(bareHost("[FE80::1]"), "fe80::1")
  })
})

describe("resolveChecked", () => {
  it.effect("a name resolving to loopback is refused, and allowed by name", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(resolveChecked("localhost", []))
      assert.strictEqual(refused.code, "fetch_blocked_address")
      assert.include(refused.message, "(the host \"localhost\" resolves to it)")
      const allowed = yield* resolveChecked("localhost", ["localhost"])
      assert.isAbove(allowed.length, 0)
      for (const a of allowed) assert.strictEqual(blockedRangeOf(a.address), "a loopback address")
      const literal = yield* resolveChecked("8.8.8.8", [])
      assert.deepStrictEqual(literal, [{ address: "8.8.8.8", family: 4 }])
      const unresolvable = yield* Effect.flip(resolveChecked("no-such-host.invalid", []))
      assert.strictEqual(unresolvable.code, "fetch_network_error")
    }))
})

describe("settings", () => {
  it("session options win over the environment, which wins over the defaults; a bad number is a problem", () => {
    assert.deepStrictEqual(resolveWebFetchSettings({}, {}), DEFAULT_WEB_FETCH_SETTINGS)
    const env = {
      TOOLWRIGHT_WEB_FETCH_ALLOW: "127.0.0.1, localhost,,",
      TOOLWRIGHT_WEB_FETCH_MAX_REDIRECTS: "2",
      TOOLWRIGHT_WEB_FETCH_MAX_BYTES: "1000",
      TOOLWRIGHT_WEB_FETCH_TIMEOUT_MS: "500",
      TOOLWRIGHT_WEB_FETCH_CONVERT_MAX_BYTES: "4000",
      TOOLWRIGHT_WEB_FETCH_CONVERT_TIMEOUT_MS: "700"
    }
    assert.deepStrictEqual(resolveWebFetchSettings({}, env), {
      allow: ["127.0.0.1", "localhost"],
      maxRedirects: 2,
      maxBytes: 1000,
      timeoutMs: 500,
      convertMaxBytes: 4000,
      convertTimeoutMs: 700
    })
    assert.deepStrictEqual(
      resolveWebFetchSettings({ allow: ["::1"], maxRedirects: 0, convertTimeoutMs: 9 }, env),
      { allow: ["::1"], maxRedirects: 0, maxBytes: 1000, timeoutMs: 500, convertMaxBytes: 4000, convertTimeoutMs: 9 }
    )
    assert.deepStrictEqual(resolveWebFetchSettings({}, { TOOLWRIGHT_WEB_FETCH_TIMEOUT_MS: "soon" }), {
      problem: "TOOLWRIGHT_WEB_FETCH_TIMEOUT_MS must be a whole number of 0 or more, not \"soon\"."
    })
    assert.deepStrictEqual(splitAllowList(" a ,b,"), ["a", "b"])
  })
})

describe("URLs, rule subjects and content types", () => {
  it.effect("parseUrl accepts http(s) only and drops the fragment", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* parseUrl("https://Example.com/a#top")).href, "https://example.com/a")
      for (const raw of ["file:///etc/passwd", "javascript:alert(1)", "//example.com", "https://u:p@example.com"]) {
        const e = yield* Effect.flip(parseUrl(raw))
        assert.strictEqual(e.code, "fetch_invalid_url", raw)
      }
    }))

  it("the rule subject is domain:<host>; content types are parsed and classified", () => {
    assert.strictEqual(ruleSubjectOf("https://Docs.Python.org/3/"), "domain:docs.python.org")
    assert.strictEqual(ruleSubjectOf("http://[::1]:8080/"), "domain:::1")
    assert.deepStrictEqual(parseContentType("text/HTML; Charset=\"ISO-8859-1\""), { mediaType: "text/html", charset: "iso-8859-1" })
    assert.deepStrictEqual(parseContentType(""), { mediaType: "", charset: undefined })
    for (const t of ["text/plain", "application/json", "application/vnd.api+json", "application/xml", "image/svg+xml"]) {
      assert.isTrue(isTextual(t), t)
    }
    for (const t of ["image/png", "application/pdf", "application/octet-stream", "application/zip"]) assert.isFalse(isTextual(t), t)
  })
})
