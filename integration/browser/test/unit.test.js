// The viewer's pure functions (no DOM), imported straight from webui/static/js: loop iterations
// (loops.js), function ranges (source.js) and Python reprs (pyrepr.js).

import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {segment, view, visits} from '../../../webui/static/js/loops.js';
import {functionRange} from '../../../webui/static/js/source.js';
import {diff, entryLabel, notRendered, parse, size} from '../../../webui/static/js/pyrepr.js';

const at = (line, ...loop) => ({line, loop: loop.map(([header, iteration]) => ({header, iteration}))});

describe('loops.js', () => {
  // for i in range(2):      line 2
  //     for j in range(2):  line 3
  //         x = i * j       line 4
  // return x                line 5
  const steps = [
    at(2, [2, 1]), at(3, [2, 1], [3, 1]), at(4, [2, 1], [3, 1]), at(3, [2, 1], [3, 2]), at(4, [2, 1], [3, 2]), at(3, [2, 1], [3, 3]),
    at(2, [2, 2]), at(3, [2, 2], [3, 1]), at(4, [2, 2], [3, 1]), at(3, [2, 2], [3, 2]), at(4, [2, 2], [3, 2]), at(3, [2, 2], [3, 3]),
    at(2, [2, 3]),
    at(5),
  ];
  const nodes = segment(steps);

  it('cuts τ into loop runs and iterations', () => {
    assert.equal(nodes.length, 2);
    assert.deepEqual(nodes[0].loop.iters.map((it) => it.n), [1, 2, 3]);
    assert.deepEqual(nodes[1], {step: 13});
    const inner = nodes[0].loop.iters[1].nodes;
    assert.deepEqual(inner[0], {step: 6});
    assert.deepEqual(inner[1].loop.iters.map((it) => [it.n, it.from, it.to]), [[1, 7, 9], [2, 9, 11], [3, 11, 12]]);
  });

  it('shows the first iterations when nothing is picked', () => {
    const {shown, loops} = view(steps, nodes, new Map());
    assert.deepEqual(shown, [0, 1, 2, 13]);
    assert.deepEqual(loops.get(2), {header: 2, iterations: [1, 2, 3], selected: 1, exit: 3});
    assert.deepEqual(loops.get(3), {header: 3, iterations: [1, 2, 3], selected: 1, exit: 3});
  });

  it('shows the iterations picked, inner loops inside the outer one picked', () => {
    const {shown} = view(steps, nodes, new Map([[2, 2], [3, 2]]));
    assert.deepEqual(shown, [6, 9, 10, 13]);
  });

  it('falls back to the first iteration for a pick the loop does not have', () => {
    const {shown, loops} = view(steps, nodes, new Map([[2, 9]]));
    assert.equal(loops.get(2).selected, 1);
    assert.deepEqual(shown, [0, 1, 2, 13]);
  });

  it('numbers the visits of each line', () => {
    assert.deepEqual(visits(steps), [1, 1, 1, 2, 2, 3, 2, 4, 3, 5, 4, 6, 3, 1]);
  });
});

describe('source.js', () => {
  const lines = [
    'import functools',           // 1
    '',                           // 2
    '@functools.cache',           // 3
    'def f(',                     // 4
    '    a,',                     // 5
    '):',                         // 6
    '    x = a  # comment',       // 7
    '',                           // 8
    '    # a comment at the end', // 9
    '    return x',               // 10
    'y = (lambda: 1)()',          // 11
    'class C:',                   // 12
    '    def m(self): return 1',  // 13
    '',                           // 14
  ];

  it('finds a decorated function with a signature over several lines', () => {
    assert.deepEqual(functionRange(lines, 3, false), [3, 10]);
  });

  it('finds a one-line method', () => {
    assert.deepEqual(functionRange(lines, 13, false), [13, 13]);
  });

  it('takes a line without def as a range of its own, widened to the steps', () => {
    assert.deepEqual(functionRange(lines, 11, false), [11, 11]);
    assert.deepEqual(functionRange(lines, 11, false, [11, 12]), [11, 12]);
  });

  it('takes the whole file for module code', () => {
    assert.deepEqual(functionRange(lines, 1, true), [1, 14]);
  });
});

describe('pyrepr.js', () => {
  /** shape writes a node back as plain data: atoms as their text, containers as arrays/objects. */
  const shape = (n) => {
    if (n.kind === 'atom') return n.text;
    const kids = n.entries.map((e) => (e.key ? [e.key.text, shape(e.value)] : e.name ? [e.name, shape(e.value)] : shape(e.value)));
    return {[n.type ? `${n.kind}:${n.type}` : n.kind]: kids, ...(n.partial ? {partial: true} : {}), ...(n.len != null ? {len: n.len} : {})};
  };

  it('reads dicts, lists, tuples and sets, nested, with strings that hold brackets', () => {
    assert.deepEqual(shape(parse("{'a': [1, 2.5, -3], 'b': ('x, y', \"]'\"), 'c': {None, True}}")),
      {dict: [["'a'", {list: ['1', '2.5', '-3']}], ["'b'", {tuple: ["'x, y'", "\"]'\""]}], ["'c'", {set: ['None', 'True']}]]});
    assert.deepEqual(shape(parse('[]')), {list: []});
    assert.deepEqual(shape(parse('{}')), {dict: []});
    assert.deepEqual(shape(parse('(1,)')), {tuple: ['1']});
    assert.deepEqual(shape(parse("b'\\x00'")), "b'\\x00'");
  });

  it('reads objects with named and positional fields, and subclasses of containers', () => {
    assert.deepEqual(shape(parse("Order(id=3, items=[Item(name='pear', qty=2)], note=None)")),
      {'object:Order': [['id', '3'], ['items', {list: [{'object:Item': [['name', "'pear'"], ['qty', '2']]}]}], ['note', 'None']]});
    assert.deepEqual(shape(parse('deque([1, 2])')), {'list:deque': ['1', '2']});
    assert.deepEqual(shape(parse('Fraction(1, 3)')), {'object:Fraction': ['1', '3']});
    assert.deepEqual(shape(parse("datetime.date(2024, 1, 31)")), {'object:datetime.date': ['2024', '1', '31']});
    assert.deepEqual(shape(parse('<Color.RED: 1>')), '<Color.RED: 1>');
    assert.deepEqual(shape(parse('[<Node at 0x…>, 1+2j, 1e-05]')), {list: ['<Node at 0x…>', '1+2j', '1e-05']});
  });

  it('marks what the recording cut: an ellipsis, a length summary, a repr stopped mid-way, a value not rendered', () => {
    assert.deepEqual(shape(parse('[0, 1, 2, ...] (len=100000)')), {list: ['0', '1', '2'], partial: true, len: 100000});
    assert.deepEqual(shape(parse("{'a': 1, 'b': [1, 2")), {dict: [["'a'", '1'], ["'b'", {list: ['1', '2'], partial: true}]], partial: true});
    assert.deepEqual(shape(parse("Big(a=1, ...)")), {'object:Big': [['a', '1']], partial: true});
    assert.equal(parse("'abcdef...").partial, true);
    assert.equal(parse('<Matrix, not rendered>').partial, true);
    assert.equal(notRendered('<Matrix, not rendered>'), true);
    assert.equal(notRendered('<Color.RED: 1>'), false);
    assert.equal(parse('[1, 2]').partial, false);
    assert.equal(parse('42').partial, undefined);
  });

  it('never throws on text that is not a repr', () => {
    for (const t of ['', ')', '{:', 'a b c', '[1, 2)', "'unterminated", '<<>', 'x=1']) assert.equal(typeof parse(t).kind, 'string', t);
    assert.deepEqual(shape(parse('[1, 2)')), '[1, 2)');
  });

  it('labels entries and sizes by path', () => {
    const n = parse("{'k': Obj(count=2), 'l': [7, 8]}");
    assert.deepEqual(n.entries.map((e, k) => entryLabel(n, e, k)), ["['k']", "['l']"]);
    assert.equal(size(n), 'dict, 2 items');
    assert.equal(size(n.entries[0].value), 'Obj, 1 field');
    assert.equal(size(parse('[0, 1, ...] (len=9)')), 'list, 9 items');
  });

  it('diffs two values: added, removed and changed, down nested containers', () => {
    assert.deepEqual(diff("{'a': 1, 'b': [1, 2], 'c': 3}", "{'a': 1, 'b': [1, 5, 6], 'd': 4}"), {
      added: [{path: "['b'][2]", value: '6'}, {path: "['d']", value: '4'}],
      removed: [{path: "['c']", value: '3'}],
      changed: [{path: "['b'][1]", old: '2', value: '5'}],
      partial: false,
    });
    assert.deepEqual(diff('P(x=1, y=2)', 'P(x=1, y=3)'), {added: [], removed: [], changed: [{path: '.y', old: '2', value: '3'}], partial: false});
    assert.deepEqual(diff('{1, 2}', '{2, 3}'), {added: [{path: '', value: '3'}], removed: [{path: '', value: '1'}], changed: [], partial: false});
    assert.equal(diff('1', '2'), null);
    assert.equal(diff('[1]', '(1,)'), null);
  });
});
