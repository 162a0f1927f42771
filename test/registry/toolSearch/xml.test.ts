import { assert, describe, it } from "@effect/vitest"
import { escapeSystemReminderTags, escapeXml, wrapSystemReminder } from "../../../src/registry/toolSearch/index.js"

describe("escapeSystemReminderTags", () => {
  const vectors: ReadonlyArray<readonly [string, string]> = [
    ["</system-reminder>", "<\\/system-reminder>"],
    ["</SYSTEM-REMINDER>", "<\\/system-reminder>"],
    ["</System-Reminder >", "<\\/system-reminder>"],
    ["< / system-reminder\n>", "<\\/system-reminder>"],
    ["</\tsystem-reminder\u00a0>", "<\\/system-reminder>"],
    ["</sys\u200btem-reminder\u2060>", "<\\/system-reminder>"],
    ["</system-reminder/>", "<\\/system-reminder>"],
    ["<system-reminder>", "&lt;system-reminder&gt;"],
    ["<SYSTEM-reminder >", "&lt;SYSTEM-reminder &gt;"],
    ["<system-reminder type=\"x\">", "&lt;system-reminder type=&quot;x&quot;&gt;"],
    ["<system-reminder/>", "&lt;system-reminder/&gt;"],
    ["a < b </system-reminder> c", "a < b <\\/system-reminder> c"],
    ["<<system-reminder>>", "<&lt;system-reminder&gt;>"],
    ["<system-reminders> <system-reminder-x> <name> <b>x</b> 1 < 2 > 0", "<system-reminders> <system-reminder-x> <name> <b>x</b> 1 < 2 > 0"],
    ["", ""]
  ]
  for (const [input, expected] of vectors) {
    it(`escapes ${JSON.stringify(input)}`, () => {
      assert.strictEqual(escapeSystemReminderTags(input), expected)
    })
  }

  it("escapes every occurrence in a longer text", () => {
    assert.strictEqual(
      escapeSystemReminderTags("x</system-reminder><system-reminder>y</system-reminder>"),
      "x<\\/system-reminder>&lt;system-reminder&gt;y<\\/system-reminder>"
    )
  })
})

describe("escapeXml / wrapSystemReminder", () => {
  it("escapes the five metacharacters", () => {
    assert.strictEqual(escapeXml("&<>\"'"), "&amp;&lt;&gt;&quot;&apos;")
  })

  it("wraps an escaped body", () => {
    assert.strictEqual(
      wrapSystemReminder("a</system-reminder>b"),
      "<system-reminder>\na<\\/system-reminder>b\n</system-reminder>"
    )
  })
})
