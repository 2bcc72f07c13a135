// Loop iterations of an FLT, for the iteration picker: which steps of τ to show for a choice of
// iteration per loop. Pure functions (no DOM), tested in integration/browser/test/unit.test.js.
//
// τ is cut the way adi/fold.go cuts it: a sequence of nodes, each a step or a run of a loop;
// a run holds its iterations (from the steps' loop positions, outermost first), each a sequence
// of nodes again. A run starts again when a step's iteration number goes down (an inner loop
// entered once more).

/**
 * segment cuts steps[from:to], whose enclosing loops above depth are shared, into nodes:
 * {step: index} or {loop: {header, iters: [{n, from, to, nodes}]}}.
 */
export function segment(steps, from = 0, to = steps.length, depth = 0) {
  const out = [];
  const pos = (i) => steps[i].loop?.[depth];
  for (let i = from; i < to;) {
    if (!pos(i)) {
      out.push({step: i});
      i++;
      continue;
    }
    const loop = {header: pos(i).header, iters: []};
    while (i < to && pos(i)?.header === loop.header) {
      const n = pos(i).iteration;
      const last = loop.iters.at(-1);
      if (last && n < last.n) break;
      if (!last || n !== last.n) loop.iters.push({n, from: i, to: i});
      i++;
      loop.iters.at(-1).to = i;
    }
    for (const it of loop.iters) it.nodes = segment(steps, it.from, it.to, depth + 1);
    out.push({loop});
  }
  return out;
}

/**
 * view chooses the steps to show. selection maps a loop's header line to the iteration wanted;
 * a loop without a choice, or whose choice it does not have, shows its first iteration. It
 * returns the indexes of the steps shown, in order, and the loops met, by header line:
 * {header, iterations: [n…], selected, exit} where exit is the number of the last iteration
 * when that one is only the loop's exiting check (null otherwise). When a loop runs more than
 * once among the steps shown, the first run is the one described.
 */
export function view(steps, nodes, selection) {
  const shown = [];
  const loops = new Map();
  const walk = (nodes) => {
    for (const node of nodes) {
      if (!node.loop) {
        shown.push(node.step);
        continue;
      }
      const {header, iters} = node.loop;
      const it = iters.find((x) => x.n === selection.get(header)) ?? iters[0];
      if (!loops.has(header)) {
        loops.set(header, {header, iterations: iters.map((x) => x.n), selected: it.n, exit: exitCheck(steps, node.loop)});
      }
      walk(it.nodes);
    }
  };
  walk(nodes);
  return {shown, loops};
}

/** exitCheck returns the last iteration's number when it only re-checks the header and leaves. */
function exitCheck(steps, loop) {
  const last = loop.iters.at(-1);
  if (loop.iters.length < 2 || last.to - last.from !== 1 || steps[last.from].line !== loop.header) return null;
  return last.n;
}

/** visits returns, for each step, which execution of its line it is (1 for the first). */
export function visits(steps) {
  const seen = new Map();
  return steps.map((s) => {
    const v = (seen.get(s.line) ?? 0) + 1;
    seen.set(s.line, v);
    return v;
  });
}
