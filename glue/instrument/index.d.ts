// Types for `perfshim/instrument`: the instrumentation transform and the bundler plugins
// (build-time tools, Node only). README "Instrumenting a bundle" says where each plugin goes.

export interface RawSourceMap {
  version: number;
  sources: string[];
  names: string[];
  mappings: string;
  file?: string;
  sourceRoot?: string;
  sourcesContent?: (string | null)[];
}

export interface InstrumentOptions {
  /** The file name the map and frames name. Default 'input.js'. */
  file?: string;
  /** The resource the frames are registered under. Default: `file`. */
  url?: string;
  /** A source map of `code` (object or JSON): frames are registered at ORIGINAL positions and the
   *  returned map is composed through it. */
  inputMap?: RawSourceMap | string | null;
  /** Default: module, then script. */
  sourceType?: 'module' | 'script';
  /** 'profiling' (default): the probes keep the stack only while a profiler runs; 'always':
   *  from this file's first run on. */
  stack?: 'profiling' | 'always';
  /** false (default): a function that calls nothing, loops nowhere and makes no function (a
   *  getter, `() => null`) gets no probes, and its time is its caller's; true: every function. */
  everyFunction?: boolean;
  /** true (default): the returned map is composed through `inputMap`; false: it is relative to
   *  `code` (for a bundler that composes the chain itself); frames go through `inputMap` either way. */
  composeMap?: boolean;
  /** 'inline' (default): the header carries the probes' runtime; or a module specifier whose
   *  `getProbes` a module's header imports (one runtime per bundle; scripts stay inline). */
  probes?: string;
}

export interface InstrumentedFrame {
  name: string;
  url: string;
  line: number;
  column: number;
}

/** Instruments `code`; throws acorn's SyntaxError for code that does not parse. The input comes
 *  back unchanged ({ map: null, frames: [] }) when it was instrumented already. */
export function instrument(
  code: string,
  options?: InstrumentOptions,
): { code: string; map: RawSourceMap | null; frames: InstrumentedFrame[] };

type Pattern = RegExp | ((path: string) => boolean);

export interface PluginOptions {
  /** Modules to instrument (by path, query removed). Default: /\.[cm]?[jt]sx?$/. */
  include?: Pattern | Pattern[];
  /** Modules to leave alone. Default: node_modules when `include` is not given, else none. */
  exclude?: Pattern | Pattern[];
  /** Packages in node_modules whose .js/.mjs/.cjs files are instrumented too (framework time
   *  attributed to the framework's functions), e.g. ['preact']. Default: none. */
  dependencies?: string[];
  /** The resource a module's frames are registered under. Default: in Vite, the URL its dev server
   *  serves the module at (base + path from root); elsewhere the path relative to the working
   *  directory (webpack: its `context`), with forward slashes. */
  url?: (path: string) => string;
  stack?: 'profiling' | 'always';
  /** As InstrumentOptions.everyFunction. */
  everyFunction?: boolean;
  /** 'import' (default): every instrumented module imports the probes' runtime, so a bundle
   *  carries it once; 'inline': each module's header carries its own copy. */
  probes?: 'import' | 'inline';
  /** The profiling variant (Rollup, Vite, esbuild, webpack): the build stays plain, the same
   *  build is made again instrumented into `<out>/<dir>/`, and a loader is written next to each
   *  entry (`main.js` → `main.loader.js`) that picks one build per page view. */
  variant?: boolean | VariantOptions;
}

export interface VariantOptions {
  /** The share of page views that get the instrumented build, 0 to 1. Default: 0.01. */
  sampleRate?: number;
  /** The folder, inside the output, of the instrumented build. Default: 'profiling'. */
  dir?: string;
  /** The query parameter that opts a view in (`=1`, or present) or out (`=0`). Default:
   *  'perfshim-profile'. */
  param?: string;
  /** The cookie that does the same when the query has no `param`. Default: 'perfshim-profile'. */
  cookie?: string;
  /** Scripts a sampled view loads, in order, before the app (e.g. '/perfshim.auto.js'). */
  before?: string[];
}

/** The loader's text: a classic script that loads `plain` or `profiled` (URLs relative to the
 *  loader's own; a list is loaded in order, the last as a module script when `module`) and sets
 *  `globalThis.perfshimProfiled`. */
export function loaderText(
  variant: VariantOptions,
  plain: string | string[],
  profiled: string | string[],
  module: boolean,
): string;

export interface EsbuildPluginOptions extends PluginOptions {
  /** esbuild plugins that load (compile) modules, e.g. a Babel plugin: esbuild runs only the first
   *  onLoad that answers, so they run inside this one, which instruments their output (their
   *  inline source map chained in). */
  plugins?: { name: string; setup: (build: any) => void | Promise<void> }[];
}

/** Rollup (put it after the plugins that compile: Babel, TypeScript, ...). */
export function rollupPlugin(options?: PluginOptions): any;
/** Vite (enforce: 'post'); workers: `worker: { plugins: () => [vitePlugin()] }`. */
export function vitePlugin(options?: PluginOptions): any;
export function esbuildPlugin(options?: EsbuildPluginOptions): {
  name: string;
  setup: (build: any) => Promise<void>;
};
/** webpack 5: a post loader (runs after babel-loader, ts-loader, ...); with `variant`, a second
 *  compiler of the same options builds the variant after each emit. */
export function webpackPlugin(options?: PluginOptions): { apply: (compiler: any) => void };
/** The unplugin instance (Rollup, Vite and the other bundlers unplugin supports). */
export const instrumentPlugin: {
  rollup: typeof rollupPlugin;
  vite: typeof vitePlugin;
  [bundler: string]: (options?: PluginOptions) => any;
};
