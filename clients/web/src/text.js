// text.js -- text that came from elsewhere (the service, another member, a share's sender): the
// label rule of decisions §15, the file-name form of a label, and the one way such text is
// made safe to show (control and bidi characters replaced, the whole isolated). Pure functions.

const CONTROL_OR_BIDI = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const CONTROL_OR_BIDI_ALL = new RegExp(CONTROL_OR_BIDI.source, 'g');
const WHITE_SPACE = '[\\t-\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]';
const EDGE_SPACE = new RegExp(`^${WHITE_SPACE}|${WHITE_SPACE}$`);

// Whether every UTF-16 surrogate is paired (String.prototype.isWellFormed is too new for the
// bundle's targets; encodeURIComponent throws on a lone surrogate).
function wellFormed(s) {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

// Why `label` is not a valid device name / roster label (decisions §15), or null: 1 to 64
// Unicode scalar values in NFC, no control or bidi character, no / or \, no white space at
// either end. The same rule as the CLI's (clients/cli/terminal_text.cpp) and the service's.
export function labelProblem(label) {
  if (typeof label !== 'string' || !wellFormed(label)) return 'it is not valid Unicode text';
  if (CONTROL_OR_BIDI.test(label)) return 'it holds a control or bidi character';
  if (/[/\\]/.test(label)) return 'it holds a / or \\';
  const n = [...label].length;
  if (n < 1 || n > 64) return 'it must have 1 to 64 characters';
  if (EDGE_SPACE.test(label)) return 'it starts or ends with white space';
  if (label.normalize('NFC') !== label) return 'it is not in Unicode NFC';
  return null;
}

// The file-name form of a label (CLIENT-FORMAT "Conflicts"): each character outside
// [A-Za-z0-9 ._-] becomes _, cut to 32 characters, spaces and dots at the ends dropped; empty
// is "device".
export function fileNameLabel(label) {
  const reduced = [...String(label ?? '')].map((c) => (/^[A-Za-z0-9 ._-]$/.test(c) ? c : '_')).slice(0, 32).join('');
  return reduced.replace(/^[ .]+|[ .]+$/g, '') || 'device';
}

// Text from elsewhere, for display: control and bidi characters become U+FFFD, so it cannot
// reorder or hide what stands around it. (Rendered inside <Untrusted>, which also isolates it.)
export const plainText = (s) => String(s ?? '').replace(CONTROL_OR_BIDI_ALL, '\uFFFD');

// plainText between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE, for places that take a
// string, not an element (confirm(), aria-label): a right-to-left name stays inside its isolate.
export const isolated = (s) => `\u2068${plainText(s)}\u2069`;
