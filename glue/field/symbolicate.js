// Symbolication: frames of minified code (a native Chromium trace, Node's) mapped back to their
// original names, files, lines and columns with the source maps in a directory, matched by the
// frame's script URL: a map is found for a script by its file name (`app.min.js` ->
// `app.min.js.map`) or by the map's own `file` member. Frames without a map, or whose position
// the map does not cover, are left as they are (instrumented frames already carry original
// positions). Maps are read once each, when a frame first needs one.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';

const scriptName = (url) => {
  try {
    return basename(new URL(url).pathname);
  } catch {
    return basename(String(url).split(/[?#]/)[0]);
  }
};

/** A function that maps a ProfilerTrace ({resources, frames, stacks, samples}) to one with
 *  original positions, from the `.map` files in `dir`. */
export function createSymbolicator(dir) {
  const files = new Map(); // script file name -> map path
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.map')) continue;
    const full = join(dir, name);
    files.set(name.slice(0, -4), full);
    try {
      const { file } = JSON.parse(readFileSync(full, 'utf8'));
      if (typeof file === 'string' && !files.has(basename(file))) files.set(basename(file), full);
    } catch {
      // An unreadable map maps nothing.
    }
  }
  const maps = new Map(); // path -> TraceMap or null
  const mapFor = (url) => {
    const path = files.get(scriptName(url));
    if (!path) return null;
    if (!maps.has(path)) {
      try {
        maps.set(path, new TraceMap(readFileSync(path, 'utf8'), url));
      } catch {
        maps.set(path, null);
      }
    }
    return maps.get(path);
  };

  return function symbolicate(trace) {
    const resources = trace.resources.slice();
    const index = new Map(resources.map((r, i) => [r, i]));
    const resourceOf = (url) => {
      let i = index.get(url);
      if (i === undefined) index.set(url, (i = resources.push(url) - 1));
      return i;
    };
    const frames = trace.frames.map((f) => {
      if (f.resourceId === undefined || !f.line || !f.column) return f;
      const map = mapFor(trace.resources[f.resourceId]);
      if (!map) return f;
      const o = originalPositionFor(map, { line: f.line, column: f.column - 1 });
      if (o.source === null || o.line === null) return f;
      return {
        column: o.column + 1,
        line: o.line,
        name: o.name || f.name,
        resourceId: resourceOf(o.source),
      };
    });
    return { frames, resources, samples: trace.samples, stacks: trace.stacks };
  };
}
