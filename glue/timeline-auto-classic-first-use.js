// What dist/perfshim.timeline.auto.js compiles and runs on first use: the timeline entry.
export * as entry from './timeline-only.js';
