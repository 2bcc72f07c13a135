// Python repr text as structure, for the values view: the probe records values as bounded repr
// strings (probe/python/adi_probe/values.py), which this reads back into dicts, lists, tuples,
// sets and objects (`Cls(a=1, b=[...])`), tolerating what it does not know (an atom) and text
// the recording cut (`...`, `(len=N)`, a repr stopped mid-way, `<Type, not rendered>`). Pure
// functions (no DOM), tested in integration/browser/test/unit.test.js.
//
// A node is {kind, text, ...}: text is the node's own repr text (a slice of the input);
//   kind 'atom'   a number, string, name, <...>: nothing inside
//   kind 'dict'   entries: [{key: node, value: node}]            ({...}, Cls({...}) with type)
//   kind 'list' | 'tuple' | 'set'  entries: [{value: node}]   (type: 'deque', 'frozenset', ...)
//   kind 'object' type: 'Cls', entries: [{name?, value: node}] (Cls(a=1, 2))
// and partial: true when the recording kept less than the whole of it (an ellipsis, a length
// summary, a cut repr, a value not rendered); len: N when a `(len=N)` summary says its size.

const CLOSE = {'[': ']', '(': ')', '{': '}'};

/** notRendered reports whether text is a value the recording did not render (`<Type, not rendered>`). */
export function notRendered(text) {
  return /^<[^<>]*, not rendered>$/.test(text ?? '');
}

/**
 * parse reads a repr into a node. It never throws: what it cannot read is an atom, and a repr
 * that ends before its brackets close (cut at the probe's length limit) is partial.
 */
export function parse(text) {
  const p = new Parser(String(text ?? ''));
  let node;
  try {
    node = p.value(0);
    p.space();
    if (p.i < p.s.length) node = {kind: 'atom', text: p.s, partial: p.s.endsWith('...')};
  } catch {
    node = {kind: 'atom', text: p.s, partial: p.s.endsWith('...')};
  }
  if (notRendered(p.s)) node.partial = true;
  return node;
}

class Parser {
  constructor(s) {
    this.s = s;
    this.i = 0;
  }

  space() {
    while (this.i < this.s.length && this.s[this.i] === ' ') this.i++;
  }

  /** value reads one value; stops (without consuming) at a separator of the enclosing container. */
  value(depth) {
    if (depth > 200) throw new Error('too deep');
    this.space();
    const start = this.i;
    const c = this.s[this.i];
    if (c === undefined) return {kind: 'atom', text: '', partial: true};
    if (c === '[' || c === '{' || (c === '(')) return this.container(start, '', depth);
    if (c === '<') return this.angle(start);
    if (this.s.startsWith('...', this.i)) {
      this.i += 3;
      return {kind: 'more', text: '...', partial: true};
    }
    const str = /^[rbuf]{0,2}['"]/i.exec(this.s.slice(this.i, this.i + 3));
    if (str) return this.string(start, str[0].length - 1);
    // a name, number or call: read up to a separator, a bracket or the end
    const m = /^[^\s,:=()[\]{}<>'"]+/.exec(this.s.slice(this.i));
    if (!m) {
      this.i++;
      return {kind: 'atom', text: c};
    }
    this.i += m[0].length;
    if (this.s[this.i] === '(' && /^[A-Za-z_][\w.]*$/.test(m[0])) return this.container(start, m[0], depth);
    // a number with a sign or exponent, or a complex like 1+2j, stays one atom
    const tail = /^[^\s,:)\]}]*/.exec(this.s.slice(this.i))[0];
    if (/^[\d.]/.test(m[0]) || m[0].startsWith('-')) this.i += tail.length;
    return {kind: 'atom', text: this.s.slice(start, this.i)};
  }

  string(start, prefix) {
    const q = this.s[this.i + prefix];
    let j = this.i + prefix + 1;
    while (j < this.s.length && this.s[j] !== q) j += this.s[j] === '\\' ? 2 : 1;
    if (j >= this.s.length) {
      this.i = this.s.length;
      return {kind: 'atom', text: this.s.slice(start), partial: true};
    }
    this.i = j + 1;
    return {kind: 'atom', text: this.s.slice(start, this.i)};
  }

  /** angle reads <...> as one atom (nested <> and quotes allowed: `<Color.RED: 1>`). */
  angle(start) {
    let depth = 0;
    for (let j = this.i; j < this.s.length; j++) {
      const c = this.s[j];
      if (c === "'" || c === '"') {
        const k = this.s.indexOf(c, j + 1);
        if (k < 0) break;
        j = k;
      } else if (c === '<') depth++;
      else if (c === '>' && --depth === 0) {
        this.i = j + 1;
        const text = this.s.slice(start, this.i);
        return {kind: 'atom', text, partial: notRendered(text)};
      }
    }
    this.i = this.s.length;
    return {kind: 'atom', text: this.s.slice(start), partial: true};
  }

  /** container reads [..], (..), {..} or Type(..) from start; type is the name before '('. */
  container(start, type, depth) {
    const open = this.s[this.i];
    const close = CLOSE[open];
    this.i++;
    const entries = [];
    let partial = false;
    let dict = false;
    let set = false;
    let named = false;
    for (;;) {
      this.space();
      if (this.i >= this.s.length) {
        partial = true; // cut before it closed
        break;
      }
      if (this.s[this.i] === close) {
        this.i++;
        break;
      }
      const v = this.value(depth + 1);
      this.space();
      let entry;
      if (open === '{' && this.s[this.i] === ':') {
        this.i++;
        entry = {key: v, value: this.value(depth + 1)};
        dict = true;
      } else if (type && this.s[this.i] === '=' && v.kind === 'atom' && /^[A-Za-z_]\w*$/.test(v.text)) {
        this.i++;
        entry = {name: v.text, value: this.value(depth + 1)};
        named = true;
      } else {
        entry = {value: v};
        if (open === '{') set = true;
      }
      if (entry.value.kind === 'more' || entry.key?.kind === 'more') partial = true;
      else entries.push(entry);
      if (entry.value.partial) partial = true;
      this.space();
      if (this.s[this.i] === ',') this.i++;
      else if (this.i < this.s.length && this.s[this.i] !== close) throw new Error(`unexpected ${this.s[this.i]}`);
    }
    let node;
    if (type) {
      // Cls({...}) and Cls([...]) are a dict or list subclass (defaultdict, deque, MyList)
      const only = entries.length === 1 && !named ? entries[0].value : null;
      if (only && ['dict', 'list', 'set'].includes(only.kind) && !only.type) node = {...only, type};
      else node = {kind: 'object', type, entries};
    } else if (open === '[') node = {kind: 'list', entries};
    else if (open === '(') node = {kind: 'tuple', entries};
    else node = {kind: dict || !set ? 'dict' : 'set', entries};
    node.partial = partial || node.partial || false;
    const m = /^ \(len=(\d+)\)/.exec(this.s.slice(this.i));
    if (m) {
      this.i += m[0].length;
      node.len = Number(m[1]);
      node.partial = true;
    }
    node.text = this.s.slice(start, this.i);
    return node;
  }
}

/** structured reports whether a node has parts to expand. */
export function structured(node) {
  return node.kind !== 'atom' && node.kind !== 'more' && node.entries.length > 0;
}

/** label names a node's entry the way the path to it reads: `['k']`, `[2]`, `.name`. */
export function entryLabel(node, entry, k) {
  if (entry.key) return `[${entry.key.text}]`;
  if (entry.name) return `.${entry.name}`;
  if (node.kind === 'set') return '·';
  return `[${k}]`;
}

/** size describes a node for the line that stands for it when open: `dict, 3 items`. */
export function size(node) {
  const n = node.len ?? node.entries.length;
  const what = node.type ?? node.kind;
  if (node.kind === 'object') return `${node.type}, ${n} ${n === 1 ? 'field' : 'fields'}`;
  return `${what}, ${n} ${n === 1 ? 'item' : 'items'}${node.partial && node.len == null ? ' or more' : ''}`;
}

/**
 * diff compares two reprs of one variable: {added, removed, changed} lists of {path, value?, old?}
 * by key (dicts, objects' fields) or position (lists, tuples), down nested containers; sets by
 * member; partial when either was cut (then what lies past the cut is not compared). null when
 * they are not two containers of one kind (then the change is the whole value).
 */
export function diff(oldText, newText) {
  const a = parse(oldText);
  const b = parse(newText);
  if (!sameKind(a, b)) return null;
  const out = {added: [], removed: [], changed: [], partial: Boolean(a.partial || b.partial)};
  walk(a, b, '', out);
  return out;
}

function sameKind(a, b) {
  return a.kind === b.kind && a.kind !== 'atom' && a.kind !== 'more' && (a.type ?? '') === (b.type ?? '');
}

function keyed(node) {
  const m = new Map();
  node.entries.forEach((e, k) => m.set(node.kind === 'set' ? e.value.text : entryLabel(node, e, k), e));
  return m;
}

function walk(a, b, path, out) {
  const ka = keyed(a);
  const kb = keyed(b);
  for (const [label, e] of kb) {
    const p = a.kind === 'set' ? path : path + label;
    const o = ka.get(label);
    if (!o) out.added.push({path: p, value: e.value.text});
    else if (o.value.text !== e.value.text) {
      if (sameKind(o.value, e.value)) walk(o.value, e.value, p, out);
      else out.changed.push({path: p, old: o.value.text, value: e.value.text});
    }
  }
  for (const [label, e] of ka) {
    if (!kb.has(label)) out.removed.push({path: a.kind === 'set' ? path : path + label, value: e.value.text});
  }
}
