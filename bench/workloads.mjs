// Workloads shared by the in-process rows (bench/node.mjs) and the steady-state runner
// (bench/node-steady.mjs), so both time the same code.

/** Nested spans, depth 4, the outer one ending last: measures arrive out of start order. */
export function nestedMeasures(p, n) {
  for (let i = 0; i < n; i += 4) {
    const t0 = p.now(),
      t1 = p.now(),
      t2 = p.now(),
      t3 = p.now();
    p.measure('d3', { start: t3 });
    p.measure('d2', { start: t2 });
    p.measure('d1', { start: t1 });
    p.measure('d0', { start: t0 });
  }
}
