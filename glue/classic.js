// What a classic-script build does on load: install synchronously (`data-force` on the script
// tag installs over a conforming host too) and expose the entry as `globalThis.perfshim`.
export function installClassic(entry) {
  const script = typeof document !== 'undefined' ? document.currentScript : null;
  const force = !!(script && script.dataset && 'force' in script.dataset);
  entry.install({ force });
  globalThis.perfshim = entry;
}

/** The entry's functions named after their keys again: dist/perfshim.auto.js minifies
 *  identifiers (classes keep their WebIDL names). */
export function nameFunctions(entry) {
  for (const [key, value] of Object.entries(entry))
    if (typeof value === 'function' && /^[a-z]/.test(key) && value.name !== key)
      Object.defineProperty(value, 'name', { value: key });
}
