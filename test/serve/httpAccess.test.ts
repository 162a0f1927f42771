import { assert, describe, it } from "@effect/vitest"
import {
  type AccessPolicy,
  checkAccess,
  InvalidListenAddress,
  isLoopbackHost,
  loopbackHosts,
  parseListenAddress,
  requireToken,
  TokenRequired,
  tokenMatches
} from "../../src/serve/httpAccess.js"
import { narrowRoots } from "../../src/serve/httpRoots.js"

const open: AccessPolicy = { token: undefined, allowedOrigins: [], allowedHosts: undefined }

describe("HTTP door access checks", () => {
  it("parses [HOST:]PORT, IPv6 in brackets, and refuses the rest", () => {
    assert.deepStrictEqual(parseListenAddress("8931"), { host: "127.0.0.1", port: 8931 })
    assert.deepStrictEqual(parseListenAddress("0.0.0.0:80"), { host: "0.0.0.0", port: 80 })
    assert.deepStrictEqual(parseListenAddress("[::1]:9000"), { host: "::1", port: 9000 })
    assert.deepStrictEqual(parseListenAddress("localhost:0"), { host: "localhost", port: 0 })
    for (const bad of ["", "host:", "70000", "a:b:c", "::1:80", "port"]) {
      const parsed = parseListenAddress(bad)
      assert.instanceOf(parsed, InvalidListenAddress, bad)
      assert.include((parsed as InvalidListenAddress).message, "is not [HOST:]PORT")
    }
  })

  it("knows loopback addresses, and requires a token only off loopback", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) assert.isTrue(isLoopbackHost(host), host)
    for (const host of ["0.0.0.0", "::", "192.168.1.2", "example.com", "128.0.0.1"]) assert.isFalse(isLoopbackHost(host), host)
    assert.isUndefined(requireToken({ host: "127.0.0.1", port: 1 }, undefined))
    assert.isUndefined(requireToken({ host: "0.0.0.0", port: 1 }, "t"))
    const refused = requireToken({ host: "0.0.0.0", port: 1 }, undefined)
    assert.instanceOf(refused, TokenRequired)
    assert.include(refused!.message, "--token-file")
  })

  it("compares tokens exactly, whatever their lengths", () => {
    assert.isTrue(tokenMatches("abc", "abc"))
    assert.isFalse(tokenMatches("abc", "abd"))
    assert.isFalse(tokenMatches("abc", "abcd"))
    assert.isFalse(tokenMatches("abc", ""))
  })

  it("answers 401 for a missing or wrong bearer token and passes the right one", () => {
    const policy = { ...open, token: "s3cret" }
    assert.strictEqual(checkAccess(policy, {})?.status, 401)
    assert.include(checkAccess(policy, { authorization: "Basic s3cret" })!.message, "Missing bearer token")
    assert.include(checkAccess(policy, { authorization: "Bearer nope" })!.message, "Wrong bearer token")
    assert.isUndefined(checkAccess(policy, { authorization: "Bearer s3cret" }))
    assert.isUndefined(checkAccess(policy, { authorization: "bearer   s3cret " }))
    assert.isUndefined(checkAccess(open, {}), "no token configured: none needed")
  })

  it("answers 403 for a foreign Origin or Host, before looking at the token", () => {
    const policy: AccessPolicy = { token: "t", allowedOrigins: ["https://app.example.com/"], allowedHosts: loopbackHosts(8931) }
    const ok = { host: "127.0.0.1:8931", authorization: "Bearer t" }
    assert.isUndefined(checkAccess(policy, ok))
    assert.isUndefined(checkAccess(policy, { ...ok, origin: "https://APP.example.com" }))
    assert.isUndefined(checkAccess(policy, { ...ok, host: "localhost:8931" }))
    const foreign = checkAccess(policy, { ...ok, origin: "http://evil.example", authorization: undefined })
    assert.strictEqual(foreign?.status, 403)
    assert.include(foreign!.message, "--allow-origin http://evil.example")
    assert.strictEqual(checkAccess(policy, { ...ok, origin: "http://127.0.0.1:8931" })?.status, 403, "no origin is allowed unless listed")
    assert.strictEqual(checkAccess(policy, { ...ok, host: "evil.example:8931" })?.status, 403)
    assert.strictEqual(checkAccess(policy, { ...ok, host: "127.0.0.1:9999" })?.status, 403)
  })
})

describe("HTTP session roots", () => {
  it("narrows the server's roots by the client's, never widening them", () => {
    const server = ["/srv/a", "/srv/b"]
    assert.deepStrictEqual(narrowRoots(server, ["/srv/a/sub"]), ["/srv/a/sub"])
    assert.deepStrictEqual(narrowRoots(server, ["/srv/b", "/srv/a/x"]), ["/srv/b", "/srv/a/x"], "client order kept")
    assert.deepStrictEqual(narrowRoots(server, ["/elsewhere", "/srv/a/x"]), ["/srv/a/x"], "a root outside is ignored")
    assert.deepStrictEqual(narrowRoots(server, ["/srv"]), ["/srv/a", "/srv/b"], "a wider client root keeps the server's roots")
    assert.deepStrictEqual(narrowRoots(server, ["/srv/ab"]), [], "containment is by path segment")
    assert.deepStrictEqual(narrowRoots(server, ["/srv/a", "/srv/a"]), ["/srv/a"])
    assert.deepStrictEqual(narrowRoots(server, []), [])
  })
})
