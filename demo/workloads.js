// Sample workloads for the profiler panel. They live in their own file, served from 127.0.0.1,
// so that the frames of a trace carry a real URL and line numbers; the function names are
// distinctive so they are easy to spot in the flame graph and the top-functions table.
// Each workload runs in slices of about 40 ms until `ms` have passed, yielding to the event
// loop between slices so the page stays responsive (and samplebufferfull can fire mid-run).

function fibonacciRecursive(n) {
  return n < 2 ? n : fibonacciRecursive(n - 1) + fibonacciRecursive(n - 2);
}

function recursiveSlice() {
  return fibonacciRecursive(24);
}

function partitionRange(a, lo, hi) {
  const pivot = a[(lo + hi) >>> 1];
  let i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) i++;
    while (a[j] > pivot) j--;
    if (i <= j) { const t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
  }
  return i;
}

function quickSortNumbers(a, lo = 0, hi = a.length - 1) {
  if (lo >= hi) return a;
  const mid = partitionRange(a, lo, hi);
  quickSortNumbers(a, lo, mid - 1);
  quickSortNumbers(a, mid, hi);
  return a;
}

function shuffledNumbers(n) {
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = Math.random();
  return a;
}

function sortingSlice() {
  const a = shuffledNumbers(60000);
  quickSortNumbers(a);
  return Array.from(a.subarray(0, 2000)).sort((x, y) => y - x)[0];
}

function buildCatalog(n) {
  const items = [];
  for (let i = 0; i < n; i++) {
    items.push({ id: i, sku: `SKU-${i.toString(36)}`, price: (i * 7.31) % 100, tags: ['a', 'b', String(i % 7)] });
  }
  return { version: 3, items };
}

function catalogRoundTrip(catalog) {
  const text = JSON.stringify(catalog);
  const back = JSON.parse(text);
  return back.items.length + text.length;
}

function jsonSlice() {
  return catalogRoundTrip(buildCatalog(4000));
}

function domBuildRows(host, n) {
  const table = document.createElement('table');
  for (let i = 0; i < n; i++) {
    const tr = table.insertRow();
    tr.insertCell().textContent = `row ${i}`;
    tr.insertCell().textContent = (i * 3.7).toFixed(1);
  }
  host.replaceChildren(table);
  return table;
}

function domMeasureLayout(table) {
  let h = 0;
  for (const row of table.rows) {
    row.style.paddingLeft = `${(row.rowIndex % 5)}px`;
    h += row.offsetHeight; // forces a layout per row
  }
  return h;
}

function domSlice(host) {
  return domMeasureLayout(domBuildRows(host, 300));
}

export const WORKLOADS = {
  recursive: { label: 'recursive (fibonacciRecursive)', slice: recursiveSlice },
  sorting: { label: 'sorting (quickSortNumbers)', slice: sortingSlice },
  json: { label: 'JSON (buildCatalog, catalogRoundTrip)', slice: jsonSlice },
  dom: { label: 'DOM-heavy (domBuildRows, domMeasureLayout)', slice: domSlice },
};

/** Run workload `name` for about `ms` milliseconds; `shouldStop()` ends it early. */
export async function runWorkload(name, ms, { host, shouldStop = () => false, onProgress } = {}) {
  const { slice } = WORKLOADS[name];
  const end = performance.now() + ms;
  let sink = 0;
  while (performance.now() < end && !shouldStop()) {
    const sliceEnd = Math.min(end, performance.now() + 40);
    while (performance.now() < sliceEnd) sink += Number(slice(host)) || 0;
    if (onProgress) onProgress(1 - Math.max(0, end - performance.now()) / ms);
    await new Promise((r) => setTimeout(r, 0));
  }
  return sink;
}
