// The bundler plugins: instrument every matching module with the transform
// (glue/instrument/transform.js), AFTER the plugins that compile it (Babel, TypeScript, JSX, Vue,
// Svelte), with their source map chained in, so that frames are registered at their positions
// in the ORIGINAL source and the bundle's map still points there.
//   Rollup / Vite (unplugin): the map of the code so far is `this.getCombinedSourcemap()`; the
//     bundler composes each plugin's map itself, so ours is returned relative to our input.
//   esbuild: runs only the first onLoad that answers, so a compiling plugin (Babel) is given to
//     ours (`plugins`), whose output, inline map included, we instrument; JSX and TypeScript are
//     compiled first with the build's own esbuild (`esbuild.transform`, the build's jsx options).
//   webpack: a post loader (webpack-loader.js) that gets the earlier loaders' map and passes on
//     the composed one, as loaders do.
//
// Options (defaults in brackets; types in plugin.d.ts):
//   include / exclude: RegExp, (path) => boolean, or an array of them [.js .mjs .cjs .jsx .ts
//     .mts .cts .tsx files; exclude: node_modules when `include` is not given, else nothing]
//   dependencies: packages in node_modules whose .js/.mjs/.cjs files are instrumented too,
//     whatever include/exclude say (['preact']: framework time attributed) [none]
//   url(path): the resource a module's frames are registered under [Vite: the URL its dev server
//     serves the module at (base + path from root, `/@fs/...` outside it); elsewhere the path
//     relative to the working directory (webpack: its context), with forward slashes]
//   stack: 'profiling' | 'always' (see `instrument` in transform.js) ['profiling']
//   plugins (esbuild only): esbuild plugins whose onLoad output is instrumented [none]
// Modules with a NUL in their id (Rollup's and Vite's virtual modules) are never instrumented.
import { createUnplugin } from 'unplugin';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import remapping from '@jridgewell/remapping';
import { TraceMap, decodedMappings, encodedMappings } from '@jridgewell/trace-mapping';
import { instrument } from './transform.js';

const SCRIPT = /\.[cm]?[jt]sx?$/;
const slash = (p) => p.split(sep).join('/');
const quoteRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const matcher = (pattern) => {
  const list = [pattern].flat();
  return (id) => list.some((p) => (typeof p === 'function' ? p(id) : p.test(id)));
};

// The probes' runtime, imported by every instrumented module (the `probes` option): the bundle
// carries it once, minified with the rest, instead of a copy in each module's header.
const RUNTIME = slash(fileURLToPath(new URL('./probes.js', import.meta.url)));

/** The options resolved to `accepts(path)`, `url(path)` and the transform's `stack` and
 *  `probes`. */
export function resolveOptions(options = {}, base = process.cwd()) {
  if (options.probes !== undefined && options.probes !== 'import' && options.probes !== 'inline')
    throw new TypeError(
      `perfshim-instrument: probes must be 'import' or 'inline', not ${String(options.probes)}`,
    );
  const include = matcher(options.include || SCRIPT);
  const exclude = options.exclude
    ? matcher(options.exclude)
    : options.include
      ? () => false
      : matcher(/[\\/]node_modules[\\/]/);
  const deps = (options.dependencies || []).map(quoteRegExp).join('|');
  const dep = deps
    ? matcher(new RegExp(`[\\\\/]node_modules[\\\\/](?:${deps})[\\\\/].*\\.[cm]?js$`))
    : () => false;
  return {
    accepts: (path) =>
      !path.includes('\0') &&
      slash(path) !== RUNTIME &&
      ((include(path) && !exclude(path)) || dep(path)),
    url: options.url || ((path) => slash(relative(base, path))),
    stack: options.stack,
    probes: options.probes === 'inline' ? 'inline' : RUNTIME,
  };
}

// The message for code the transform cannot parse: almost always JSX, TypeScript or a framework's
// syntax that reached the plugin before the plugin that compiles it (Vite then blamed its own
// `commonjs--resolver`).
function parseError(e, id) {
  if (!(e instanceof SyntaxError)) return e;
  const err = new SyntaxError(
    `perfshim-instrument: ${id}: ${e.message}. The plugin instruments JavaScript: it must run ` +
      'after the plugins that compile JSX, TypeScript, Vue or Svelte (Rollup: later in ' +
      "`plugins`; Vite: its default enforce 'post', so no compiling plugin may run after it; " +
      'webpack: it is a post loader; esbuild: give the compiling plugin to its `plugins` option).',
  );
  err.loc = e.loc;
  err.pos = e.pos;
  return err;
}

/** instrument() with the map of an earlier transform (`inputMap`, single-source maps renamed to
 *  `url` so that frames carry the resource name the options chose). Returns { code, map } with
 *  the map composed through `inputMap` (webpack, esbuild), or, with `relative`, relative to
 *  `code` (Rollup and Vite compose the chain themselves). */
export function instrumentModule(code, path, o, inputMap = null, relative = false) {
  const url = o.url(path);
  let input = typeof inputMap === 'string' ? JSON.parse(inputMap) : inputMap;
  const one = input && input.sources && input.sources.length === 1;
  if (input) input = atParens(input, code);
  const named = one ? { ...input, sources: [url], sourceRoot: undefined } : input;
  let out;
  try {
    out = instrument(code, {
      file: path,
      url,
      inputMap: named,
      stack: o.stack,
      probes: o.probes,
      composeMap: !relative,
    });
  } catch (e) {
    throw parseError(e, path);
  }
  if (!out.map) return null;
  if (input && !relative && one && out.map.sources.length === 1)
    out.map.sources = input.sources.slice();
  return out;
}

// A function's frame is at the `(` of its parameters, which token-level maps (esbuild's) leave
// unmapped: the `(` then traced to the token before it (`App` of `function App(`). Each unmapped
// `(` gets a segment at the same distance from the segment before it on its line, in the
// original too (the text between a name and its `(` is the same in both).
function atParens(map, code) {
  const lines = decodedMappings(new TraceMap(map));
  const text = code.split('\n');
  let added = false;
  const out = lines.map((segs, i) => {
    const line = text[i] || '';
    if (!segs.length || !line.includes('(')) return segs;
    const next = [];
    let k = 0;
    for (let col = line.indexOf('('); col >= 0; col = line.indexOf('(', col + 1)) {
      while (k < segs.length && segs[k][0] <= col) next.push(segs[k++]);
      const prev = next.at(-1);
      if (!prev || prev[0] === col || prev.length < 4) continue;
      next.push([col, prev[1], prev[2], prev[3] + col - prev[0]]);
      added = true;
    }
    return next.concat(segs.slice(k));
  });
  return added
    ? { ...map, mappings: encodedMappings(new TraceMap({ ...map, mappings: out })) }
    : map;
}

// Rollup and Vite (and webpack's options through unplugin's factory signature).
export const unpluginFactory = (options = {}) => {
  let o = resolveOptions(options);
  return {
    name: 'perfshim-instrument',
    enforce: 'post',
    resolveId(id) {
      return id === RUNTIME ? id : null;
    },
    transformInclude(id) {
      return o.accepts(id.split('?')[0]);
    },
    transform(code, id) {
      const path = id.split('?')[0];
      let input = null;
      if (typeof this.getCombinedSourcemap === 'function') {
        let original = null;
        try {
          original = readFileSync(path, 'utf8');
        } catch {}
        if (original !== code) input = this.getCombinedSourcemap();
      }
      try {
        const out = instrumentModule(code, path, o, input, true);
        return out && { code: out.code, map: out.map };
      } catch (e) {
        if (typeof this.error === 'function' && e instanceof SyntaxError) this.error(e);
        throw e;
      }
    },
    vite: {
      configResolved(config) {
        if (options.url) return;
        const url = (path) => {
          const rel = slash(relative(config.root, path));
          return rel.startsWith('../') || isAbsolute(rel)
            ? `${config.base}@fs/${slash(path).replace(/^\//, '')}`
            : `${config.base}${rel}`;
        };
        o = { ...o, url };
      },
    },
  };
};

export const instrumentPlugin = createUnplugin(unpluginFactory);
export const vitePlugin = instrumentPlugin.vite;
export const rollupPlugin = instrumentPlugin.rollup;

const INLINE_MAP =
  /\n?\/\/[#@] sourceMappingURL=data:application\/json(?:;charset=[\w-]+)?;base64,([A-Za-z0-9+/=]+)\s*$/;
const inlineMap = (map) =>
  `\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}`;
const LOADERS = { '.jsx': 'jsx', '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx' };
// The build options esbuild.transform needs to compile a module as the build would.
const COMPILE = ['jsx', 'jsxFactory', 'jsxFragment', 'jsxImportSource', 'jsxDev', 'jsxSideEffects'];
const COMPILE_TOO = ['target', 'supported', 'tsconfigRaw', 'define', 'platform'];

/** The esbuild plugin. */
export function esbuildPlugin(options = {}) {
  const o = resolveOptions(options);
  return {
    name: 'perfshim-instrument',
    async setup(build) {
      // The wrapped plugins' onLoad callbacks, asked first, in their order.
      const loads = [];
      for (const p of options.plugins || [])
        await p.setup({ ...build, onLoad: (filter, cb) => loads.push([filter, cb]) });
      const initial = build.initialOptions;
      const compile = {};
      for (const k of [...COMPILE, ...COMPILE_TOO])
        if (initial[k] !== undefined) compile[k] = initial[k];
      build.onLoad({ filter: /.*/ }, async (args) => {
        let result;
        for (const [f, cb] of loads) {
          if (!f.filter.test(args.path) || (f.namespace || 'file') !== args.namespace) continue;
          result = await cb(args);
          if (result && result.contents != null) break;
          result = undefined;
        }
        if ((args.namespace !== 'file' && !result) || !o.accepts(args.path)) return result;
        let code = result
          ? typeof result.contents === 'string'
            ? result.contents
            : new TextDecoder().decode(result.contents)
          : await readFile(args.path, 'utf8');
        let map = null;
        const inline = INLINE_MAP.exec(code);
        if (inline) {
          map = JSON.parse(Buffer.from(inline[1], 'base64').toString());
          code = code.slice(0, inline.index);
        }
        const loader = (result && result.loader) || LOADERS[extname(args.path)] || 'js';
        if (loader !== 'js') {
          const r = await build.esbuild.transform(code, {
            ...compile,
            loader,
            sourcefile: args.path,
            sourcemap: 'external',
          });
          map = map ? remapping([JSON.parse(r.map), map], () => null) : JSON.parse(r.map);
          code = r.code;
        }
        const base = {
          resolveDir: (result && result.resolveDir) || dirname(args.path),
          pluginData: result && result.pluginData,
          watchFiles: result && result.watchFiles,
        };
        let out;
        try {
          out = instrumentModule(code, args.path, o, map);
        } catch (e) {
          if (!(e instanceof SyntaxError)) throw e;
          return { errors: [{ text: e.message }] };
        }
        if (!out) return { ...base, contents: code + (map ? inlineMap(map) : ''), loader: 'js' };
        return { ...base, contents: out.code + inlineMap(out.map), loader: 'js' };
      });
    },
  };
}

const LOADER = fileURLToPath(new URL('./webpack-loader.js', import.meta.url));

/** The webpack 5 plugin: a post loader for every module the options accept. */
export function webpackPlugin(options = {}) {
  return {
    apply(compiler) {
      const o = resolveOptions(options, compiler.options.context || process.cwd());
      compiler.options.module.rules.unshift({
        enforce: 'post',
        test: (path) => o.accepts(path),
        use: [{ loader: LOADER, options: { o } }],
      });
    },
  };
}
