// The classic-script form of perfshim/field, built as dist/perfshim.field.js (an IIFE of the
// sampling decision and the page client, 2.7 KB gzipped): only a sampled view then imports the
// Profiler and the field core, from dist/perfshim.field-sampled.mjs served beside it.
// `<script src=".../perfshim.field.js" data-endpoint="https://collect.example/"
//   data-sample-rate="0.01" data-release="v42"></script>` starts profileVisits() with those
// options (every other data-* attribute is a label); `perfshimField.profileVisits` is there for
// pages that start it themselves.
import { profileVisits } from './visits.js';

const script = typeof document !== 'undefined' ? document.currentScript : null;
const started = { control: null };
try {
  const data = script ? { ...script.dataset } : {};
  if (data.endpoint) {
    const { endpoint, sampleRate, ...labels } = data;
    started.control = profileVisits({ endpoint, sampleRate: Number(sampleRate ?? 0.01), labels });
  }
} catch {
  // Never throws into the page.
}
globalThis.perfshimField = { profileVisits, control: started.control };
