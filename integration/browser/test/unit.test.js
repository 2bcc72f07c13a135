// The viewer's pure functions (no DOM), imported straight from webui/static/js: loop iterations
// (loops.js) and function ranges (source.js).

import {describe, it} from 'node:test';
import assert from 'node:assert/strict';
import {segment, view, visits} from '../../../webui/static/js/loops.js';
import {functionRange} from '../../../webui/static/js/source.js';

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
