// The classic-script build (dist/perfshim.auto.js): `<script src=".../perfshim.auto.js">` in a
// page, or importScripts() in a worker, installs synchronously and exposes `perfshim`.
// `<script src=... data-force>` installs over a conforming host too.
import * as perfshim from './index.js';

const script = typeof document !== 'undefined' ? document.currentScript : null;
const force = !!(script && script.dataset && 'force' in script.dataset);
perfshim.install({ force });
globalThis.perfshim = perfshim;
