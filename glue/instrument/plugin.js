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
//   probes: 'import' (every module imports the probes' runtime: one copy per bundle) | 'inline'
//     (each module's header carries it, as the CLI's output does) ['import']
//   variant: true or {sampleRate [0.01], dir ['profiling'], param ['perfshim-profile'],
//     cookie ['perfshim-profile'], before [[]]}: the plain build plus an instrumented one and a
//     loader per entry (below; Rollup, Vite, esbuild, webpack) [none]
//   plugins (esbuild only): esbuild plugins whose onLoad output is instrumented [none]
// Modules with a NUL in their id (Rollup's and Vite's virtual modules) are never instrumented.
import { createUnplugin } from 'unplugin';
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
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

/** The options resolved to `accepts(path)`, `url(path)` and the transform's `stack`,
 *  `everyFunction` and `probes`. */
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
    everyFunction: !!options.everyFunction,
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
      everyFunction: o.everyFunction,
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

// The profiling variant (issue 25: pay only when profiling): with `variant`, the build itself is
// the PLAIN build (nothing instrumented), and when it has been written the plugin builds the
// same configuration again, instrumented, into `<out>/<variant.dir>/`, and writes a loader next
// to each entry (`main.js` → `main.loader.js`): a classic script of a few hundred bytes that
// picks one build per page view (the query parameter, else the cookie, else `sampleRate`),
// loads the `before` scripts in sampled views only (e.g. perfshim.auto.js), then the entry.
// An unsampled view downloads and runs exactly the plain build. The second build runs with a
// realm-wide flag set (Vite loads its config file again: the plugin it creates there must
// instrument instead of building a third time).
const NESTED = Symbol.for('perfshim.instrument.variant');
const inVariant = () => (globalThis[NESTED] || 0) > 0;
async function asVariant(run) {
  globalThis[NESTED] = (globalThis[NESTED] || 0) + 1;
  try {
    return await run();
  } finally {
    globalThis[NESTED]--;
  }
}

/** The `variant` option with its defaults, or null. */
export function variantOptions(v) {
  if (!v) return null;
  const o = {
    sampleRate: 0.01,
    dir: 'profiling',
    param: 'perfshim-profile',
    cookie: 'perfshim-profile',
    before: [],
    ...(v === true ? {} : v),
  };
  if (!(o.sampleRate >= 0 && o.sampleRate <= 1))
    throw new RangeError(
      `perfshim-instrument: variant.sampleRate must be in [0, 1], not ${o.sampleRate}`,
    );
  if (
    typeof o.dir !== 'string' ||
    !o.dir ||
    isAbsolute(o.dir) ||
    o.dir.split(/[\\/]/).includes('..')
  )
    throw new TypeError(
      `perfshim-instrument: variant.dir must be a folder inside the output, not ${o.dir}`,
    );
  return o;
}

/** The loader's text: a classic script that loads `plain` or `profiled` (URLs relative to the
 *  loader's own; each a URL or a list loaded in order), the last as a module script when
 *  `module`. Sets `perfshimProfiled` on the global object
 *  (true in a sampled view) for the page's own code, a RUM SDK's for one. */
export function loaderText(variant, plain, profiled, module) {
  const v = variantOptions(variant || true);
  const re = `(?:^|; )${quoteRegExp(v.cookie)}=([^;]*)`;
  return (
    `/* perfshim: the profiling variant for ${Math.round(v.sampleRate * 1e4) / 100} % of views, or ?${v.param}=1, or the cookie ${v.cookie}=1 */\n` +
    `(function(){var d=document,b=(d.currentScript||{}).src||location.href,` +
    `q=new URLSearchParams(location.search).get(${JSON.stringify(v.param)}),c=d.cookie.match(${JSON.stringify(re)}),` +
    `p=q!==null?q!=="0":c?c[1]!=="0":Math.random()<${v.sampleRate},` +
    `l=p?${JSON.stringify(v.before)}.concat(${JSON.stringify([profiled].flat())}):${JSON.stringify([plain].flat())};` +
    'globalThis.perfshimProfiled=p;' +
    '(function n(i){var e=d.createElement("script");' +
    `e.src=new URL(l[i],b).href;if(i===l.length-1){${module ? 'e.type="module";' : ''}}else e.onload=e.onerror=function(){n(i+1)};` +
    'd.head.appendChild(e)})(0)})();\n'
  );
}

const rel = (from, to) => {
  const r = slash(relative(dirname(from), to));
  return r.startsWith('.') ? r : `./${r}`;
};

/** [path, text] of a loader next to each plain entry: `entries` are [plain, variant] pairs,
 *  each a file or the files an entry loads in order (webpack: its runtime chunk first; a
 *  `?query` in a name stays in the URL, not in the loader's name). */
function loaderFiles(v, entries, module) {
  return entries.map(([plain, profiled]) => {
    const main = [plain]
      .flat()
      .at(-1)
      .replace(/[?#].*/, '');
    const loader = main.replace(/(\.[cm]?js)?$/, '.loader.js');
    const urls = (files) => [files].flat().map((f) => rel(loader, f));
    return [loader, loaderText(v, urls(plain), urls(profiled), module)];
  });
}

function writeLoaders(v, entries, module) {
  for (const [path, text] of loaderFiles(v, entries, module)) writeFileSync(path, text);
}

// Rollup and Vite (and webpack's options through unplugin's factory signature).
export const unpluginFactory = (options = {}) => {
  let o = resolveOptions(options);
  const v = variantOptions(options.variant);
  // (the plain build of a variant instruments nothing; its second build does)
  const plain = () => v !== null && !inVariant();
  let inputOptions = null;
  let viteConfig = null;
  return {
    name: 'perfshim-instrument',
    enforce: 'post',
    options(io) {
      inputOptions = io;
      return null;
    },
    async writeBundle(outputOptions, bundle) {
      if (!plain()) return;
      const out = outputOptions.dir || dirname(outputOptions.file);
      const dir = join(out, v.dir);
      const firstEntry = (output) =>
        new Map(
          output
            .filter((c) => c.type === 'chunk' && c.isEntry)
            .map((c) => [c.facadeModuleId, c.fileName]),
        );
      let entries;
      if (viteConfig) {
        const { build } = await import('vite');
        const c = viteConfig;
        // (Vite writes the resolved client environment back into inlineConfig: its outDir too)
        const into = { outDir: dir, emptyOutDir: true };
        const env = c.inlineConfig.environments;
        const result = await asVariant(() =>
          build({
            ...c.inlineConfig,
            ...(env && env.client
              ? {
                  environments: {
                    ...env,
                    client: { ...env.client, build: { ...env.client.build, ...into } },
                  },
                }
              : {}),
            configFile: c.configFile || false,
            root: c.root,
            mode: c.mode,
            publicDir: false,
            logLevel: 'warn',
            build: { ...c.inlineConfig.build, ...into },
          }),
        );
        entries = firstEntry([result].flat().flatMap((r) => r.output));
      } else {
        const { rollup } = await import('rollup');
        const b = await asVariant(() => rollup(inputOptions));
        const file = outputOptions.file && join(dir, relative(out, outputOptions.file));
        const { output } = await asVariant(() =>
          b.write({ ...outputOptions, ...(file ? { file } : { dir }) }),
        );
        await b.close();
        entries = firstEntry(output);
      }
      const pairs = [];
      for (const c of Object.values(bundle))
        if (c.type === 'chunk' && c.isEntry && entries.has(c.facadeModuleId))
          pairs.push([join(out, c.fileName), join(dir, entries.get(c.facadeModuleId))]);
      const module = !['iife', 'umd', 'cjs', 'commonjs', 'system'].includes(outputOptions.format);
      writeLoaders(v, pairs, module);
      // A built index.html loads the loader instead of the entry.
      for (const a of Object.values(bundle)) {
        if (a.type !== 'asset' || !a.fileName.endsWith('.html')) continue;
        const path = join(out, a.fileName);
        let html = readFileSync(path, 'utf8');
        for (const [entry] of pairs) {
          const src = quoteRegExp(slash(relative(out, entry)));
          html = html.replace(
            new RegExp(`<script type="module"[^>]*src="([^"]*${src})"[^>]*></script>`),
            (_, url) => `<script src="${url.replace(/(\.[cm]?js)?$/, '.loader.js')}"></script>`,
          );
        }
        writeFileSync(path, html);
      }
    },
    resolveId(id) {
      return id === RUNTIME ? id : null;
    },
    transformInclude(id) {
      return !plain() && o.accepts(id.split('?')[0]);
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
        viteConfig = config;
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
  const v = variantOptions(options.variant);
  return {
    name: 'perfshim-instrument',
    async setup(build) {
      const plain = v !== null && !inVariant();
      if (plain) {
        // The plain build, then the same build instrumented into `<out>/<dir>/`, then loaders.
        const initial = build.initialOptions;
        initial.metafile = true;
        build.onEnd(async (result) => {
          if (result.errors.length || initial.write === false) return;
          const out = initial.outdir || dirname(initial.outfile);
          const dir = join(out, v.dir);
          const where = initial.outdir
            ? { outdir: dir }
            : { outfile: join(dir, relative(out, initial.outfile)) };
          const r = await asVariant(() => build.esbuild.build({ ...initial, ...where }));
          const entries = (m) =>
            new Map(
              Object.entries(m.outputs)
                .filter(([, x]) => x.entryPoint)
                .map(([file, x]) => [x.entryPoint, resolve(initial.absWorkingDir || '', file)]),
            );
          const a = entries(result.metafile);
          const b = entries(r.metafile);
          writeLoaders(
            v,
            [...a].filter(([e]) => b.has(e)).map(([e, file]) => [file, b.get(e)]),
            initial.format === 'esm',
          );
        });
      }
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
        if ((args.namespace !== 'file' && !result) || plain || !o.accepts(args.path)) return result;
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

/** The webpack 5 plugin: a post loader for every module the options accept; with `variant`,
 *  nothing instrumented, and the variant built after each emit (webpackVariant). */
export function webpackPlugin(options = {}) {
  const v = variantOptions(options.variant);
  return {
    apply(compiler) {
      if (v !== null && !inVariant()) return webpackVariant(compiler, v);
      const o = resolveOptions(options, compiler.options.context || process.cwd());
      compiler.options.module.rules.unshift({
        enforce: 'post',
        test: (path) => o.accepts(path),
        use: [{ loader: LOADER, options: { o } }],
      });
    },
  };
}

// webpack's options as the plugins see them (normalized; webpack's defaults come later and do not
// validate as input), plain objects and arrays copied so that those defaults do not land in them
// (property descriptors kept: a Babel plugin's non-enumerable `__esModule` matters).
const copyOptions = (x) => {
  if (Array.isArray(x)) return x.map(copyOptions);
  if (!x || Object.getPrototypeOf(x) !== Object.prototype) return x;
  const d = Object.getOwnPropertyDescriptors(x);
  for (const p of Object.values(d)) if ('value' in p) p.value = copyOptions(p.value);
  return Object.defineProperties({}, d);
};

// The JS files an entrypoint needs, in load order, as paths in `out`: its own chunk's last. An ES
// entry (`output.module`) imports its runtime and split chunks itself: its own file only.
function entryFiles(compilation, out, module) {
  const files = new Map();
  for (const [name, e] of compilation.entrypoints) {
    const main = e.getEntrypointChunk();
    const chunks = module ? [main] : [...e.chunks.filter((c) => c !== main), main];
    const js = chunks
      .flatMap((c) => [...c.files])
      .filter((f) => /\.[cm]?js$/.test(f.replace(/[?#].*/, '')));
    files.set(
      name,
      js.map((f) => join(out, f)),
    );
  }
  return files;
}

// The webpack variant: after each emit of the plain build (a watch's and a dev server's rebuilds
// too), a second compiler made once from the same options, writing into `<output.path>/<dir>/`
// through the same output file system (a dev server's memory), builds the app instrumented; then
// a loader is written next to each entry's own file. Its errors are the build's errors.
function webpackVariant(compiler, v) {
  const options = copyOptions(compiler.options);
  let variant = null;
  compiler.hooks.afterEmit.tapPromise('perfshim-instrument', async (compilation) => {
    if (compilation.getStats().hasErrors()) return;
    const out = compilation.getPath(compiler.outputPath, {});
    const dir = join(out, v.dir);
    if (!variant) {
      const { output, cache } = options;
      const p = output.publicPath;
      const publicPath =
        typeof p === 'string' && p !== 'auto' ? `${p.replace(/([^/])$/, '$1/')}${v.dir}/` : p;
      // (a filesystem cache of its own: under the same name each build would evict the other's)
      const name =
        cache && cache.type === 'filesystem' && `${compiler.options.cache.name}-${v.dir}`;
      variant = await asVariant(() =>
        compiler.webpack({
          ...options,
          watch: false,
          output: { ...output, path: dir, publicPath },
          cache: name ? { ...cache, name } : cache,
        }),
      );
    }
    variant.outputFileSystem = compiler.outputFileSystem;
    const stats = await new Promise((resolve, reject) =>
      variant.run((err, s) => (err ? reject(err) : resolve(s))),
    );
    const built = stats.compilation;
    compilation.warnings.push(...built.warnings);
    if (stats.hasErrors()) return compilation.errors.push(...built.errors);
    const module = Boolean(compilation.outputOptions.module);
    const plain = entryFiles(compilation, out, module);
    const profiled = entryFiles(built, dir, module);
    const pairs = [...plain].filter(([e]) => profiled.has(e)).map(([e, f]) => [f, profiled.get(e)]);
    const fs = compiler.outputFileSystem;
    await Promise.all(
      loaderFiles(v, pairs, module).map(
        ([path, text]) =>
          new Promise((resolve, reject) =>
            fs.writeFile(path, text, (err) => (err ? reject(err) : resolve())),
          ),
      ),
    );
  });
  compiler.hooks.shutdown.tapAsync('perfshim-instrument', (done) =>
    variant ? variant.close(done) : done(),
  );
}
