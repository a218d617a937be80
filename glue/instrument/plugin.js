// The bundler plugin: one unplugin that instruments every matching module with the transform
// (glue/instrument/transform.js) in esbuild, Vite, Rollup and webpack. The bundler composes our
// source map with the maps of earlier transforms.
//
//   import { esbuildPlugin } from 'perfshim/instrument';
//   await esbuild.build({ ..., plugins: [esbuildPlugin({ include: /src\// })] });
//
// Options: `include` / `exclude` (RegExp or (id) => boolean; default: .js/.mjs/.cjs/.jsx files
// outside node_modules), `url(id)` (the resource frames are registered under; default: the
// module's path relative to the working directory, with forward slashes), `stack` ('profiling',
// the default, or 'always': see `instrument` in transform.js).
import { createUnplugin } from 'unplugin';
import { relative, sep } from 'node:path';
import { instrument } from './transform.js';

const test = (pattern, id) => (typeof pattern === 'function' ? pattern(id) : pattern.test(id));

export const unpluginFactory = (options = {}) => {
  const include = options.include || /\.[cm]?jsx?$/;
  const exclude = options.exclude || (options.include ? () => false : /[\\/]node_modules[\\/]/);
  const url = options.url || ((id) => relative(process.cwd(), id).split(sep).join('/'));
  return {
    name: 'perfshim-instrument',
    enforce: 'post',
    transformInclude(id) {
      const path = id.split('?')[0];
      return test(include, path) && !test(exclude, path);
    },
    transform(code, id) {
      const path = id.split('?')[0];
      const out = instrument(code, { file: path, url: url(path), stack: options.stack });
      return out.map ? { code: out.code, map: out.map } : null;
    },
  };
};

export const instrumentPlugin = createUnplugin(unpluginFactory);
export const esbuildPlugin = instrumentPlugin.esbuild;
export const vitePlugin = instrumentPlugin.vite;
export const rollupPlugin = instrumentPlugin.rollup;
export const webpackPlugin = instrumentPlugin.webpack;
