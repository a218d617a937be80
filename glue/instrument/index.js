// perfshim/instrument: the transform and the bundler plugins (Node only: build-time tools).
export { instrument } from './transform.js';
export {
  instrumentPlugin,
  esbuildPlugin,
  vitePlugin,
  rollupPlugin,
  webpackPlugin,
  loaderText,
} from './plugin.js';
