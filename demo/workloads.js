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

function shuffleInPlace(a) {
  for (let i = a.length - 1; i > 0; i--) {
    const j = (Math.random() * (i + 1)) | 0;
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
  return a;
}

function insertionSortNumbers(a) {
  for (let i = 1; i < a.length; i++) {
    const v = a[i];
    let j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
  return a;
}

function bubbleSortNumbers(a) {
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j + 1 < a.length - i; j++) {
      if (a[j] > a[j + 1]) {
        const t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
      }
    }
  }
  return a;
}

// Simple quadratic sorts on purpose: Chromium's sampler (checked with Chromium 14x) returns
// most samples of an optimized quicksort's partition loop with an empty stack, which makes a
// poor demo; these keep their frames.
const toSort = Array.from({ length: 1500 }, (_, i) => i);
const toBubble = Array.from({ length: 400 }, (_, i) => i);

function sortingSlice() {
  insertionSortNumbers(shuffleInPlace(toSort));
  bubbleSortNumbers(shuffleInPlace(toBubble));
  return toSort[0] + toBubble[0];
}

function buildCatalog(n) {
  const items = [];
  for (let i = 0; i < n; i++) {
    items.push({
      id: i,
      sku: `SKU-${i.toString(36)}`,
      price: (i * 7.31) % 100,
      tags: ['a', 'b', String(i % 7)],
    });
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
    row.style.paddingLeft = `${row.rowIndex % 5}px`;
    h += row.offsetHeight; // forces a layout per row
  }
  return h;
}

function domSlice(host) {
  return domMeasureLayout(domBuildRows(host, 300));
}

export const WORKLOADS = {
  recursive: { label: 'recursive (fibonacciRecursive)', slice: recursiveSlice },
  sorting: { label: 'sorting (insertionSortNumbers, bubbleSortNumbers)', slice: sortingSlice },
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
