// What a classic-script build does on load: install synchronously (`data-force` on the script
// tag installs over a conforming host too) and expose the entry as `globalThis.perfshim`.
export function installClassic(entry) {
  // Its bundle minifies identifiers: the entry's functions get their names back (classes have
  // their WebIDL names already).
  for (const [key, value] of Object.entries(entry))
    if (typeof value === 'function' && /^[a-z]/.test(key) && value.name !== key)
      Object.defineProperty(value, 'name', { value: key });
  const script = typeof document !== 'undefined' ? document.currentScript : null;
  const force = !!(script && script.dataset && 'force' in script.dataset);
  entry.install({ force });
  globalThis.perfshim = entry;
}
