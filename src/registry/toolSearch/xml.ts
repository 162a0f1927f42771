/**
 * Escaping for text placed inside a `<system-reminder>` envelope (reference §2.4).
 *
 * @since 0.1.0
 */

/** Escapes the five XML metacharacters `& < > " '`. */
export const escapeXml = (text: string): string =>
  text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")

/** A tag-shaped run: `<`, anything but `<` / `>`, `>`. Excluding `<` keeps `a < </system-reminder>` caught. */
const TAG_CANDIDATE = /<[^<>]*>/g

/** Invisible code points dropped before recognising a tag: controls, soft hyphen, zero-widths, bidi, BOM, selectors. */
const IGNORABLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff]/g

const SYSTEM_REMINDER_TAG = /^<\s*(\/?)\s*system-reminder(?:\s+[^>]*)?\s*\/?\s*>$/

const escapeCandidate = (tag: string): string => {
  const match = SYSTEM_REMINDER_TAG.exec(tag.replace(IGNORABLE, "").toLowerCase())
  if (match === null) return tag
  return match[1] === "/" ? "<\\/system-reminder>" : escapeXml(tag)
}

/** Neutralises system-reminder tags: closing variants become `<\/system-reminder>`, others are XML-escaped. */
export const escapeSystemReminderTags = (text: string): string => text.replace(TAG_CANDIDATE, escapeCandidate)

/** Wraps a body in `<system-reminder>` after escaping any system-reminder tags inside it. */
export const wrapSystemReminder = (body: string): string =>
  `<system-reminder>\n${escapeSystemReminderTags(body)}\n</system-reminder>`
