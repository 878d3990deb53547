const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and quoted attribute values. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);

/**
 * Removes what XML 1.0 cannot carry even escaped: C0 controls other than tab, LF and CR,
 * U+FFFE/U+FFFF and unpaired surrogates. Without this one stray control character in a
 * signal makes the whole feed unreadable to every conforming parser.
 */
export const xmlSafe = (text: string) =>
  text.replace(
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '',
  );

/**
 * Makes text safe inside the `feed` package's CDATA sections. Its serializer (xml-js) splits
 * only the first `]]>` of a section, so every later one is split here, the same way.
 */
export function cdataSafe(text: string): string {
  let first = true;
  return text.replace(/]]>/g, (match) => {
    if (first) {
      first = false;
      return match;
    }
    return ']]]]><![CDATA[>';
  });
}

/** An http(s) URL, or null: only these become links. */
export function httpUrl(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}
