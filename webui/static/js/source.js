// Which source lines belong to a function, found from its first line and the indentation of
// what follows. Pure functions (no DOM), tested in integration/browser/test/unit.test.js.

const indent = (s) => s.length - s.trimStart().length;
const blank = (s) => s.trim() === '' || s.trimStart().startsWith('#');

/**
 * functionRange returns the first and last line (1-based, inclusive) of the function whose
 * definition starts at line first (its first decorator, if any): the decorators, the def line
 * (or lines, when the signature spans several) and the body, which ends before the next line
 * that is not more indented than the def. The whole file is the range of a module's code
 * (whole); a line that holds no def (a lambda, a comprehension) is a range of its own. The
 * range always covers the lines of steps (a list of line numbers).
 */
export function functionRange(lines, first, whole, steps = []) {
  let [start, end] = whole ? [1, lines.length] : bodyRange(lines, first);
  for (const l of steps) {
    start = Math.min(start, l);
    end = Math.max(end, l);
  }
  return [Math.max(start, 1), Math.min(end, lines.length)];
}

function bodyRange(lines, first) {
  let def = first - 1;
  while (def < lines.length && lines[def].trimStart().startsWith('@')) def++;
  if (def >= lines.length || !/^\s*(async\s+def|def|class)\b/.test(lines[def])) return [first, first];
  const base = indent(lines[def]);
  let sig = def;
  for (let depth = parens(lines[def]); depth > 0 && sig + 1 < lines.length;) depth += parens(lines[++sig]);
  let end = sig;
  for (let j = sig + 1; j < lines.length; j++) {
    if (blank(lines[j])) continue;
    if (indent(lines[j]) <= base) break;
    end = j;
  }
  return [first, end + 1];
}

/** parens counts the brackets a line opens minus those it closes, ignoring strings and comments. */
function parens(line) {
  let depth = 0;
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') break;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
  }
  return depth;
}
