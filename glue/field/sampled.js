// What a sampled view loads (visits.js imports this module with import() once the view is
// sampled, so an unsampled one loads neither): the Profiler with its sources, and the field
// core. The classic-script build (dist/perfshim.field.js) loads it as dist/perfshim.field-sampled.mjs
// from beside itself.
export { createProfilerClass, defaultSources } from '../profiler/profiler.js';
export { createField } from './core.js';
