// What a classic-script build does on load: install synchronously (`data-force` on the script
// tag installs over a conforming host too) and expose the entry as `globalThis.perfshim`.
export function installClassic(entry) {
  const script = typeof document !== 'undefined' ? document.currentScript : null;
  const force = !!(script && script.dataset && 'force' in script.dataset);
  entry.install({ force });
  globalThis.perfshim = entry;
}
