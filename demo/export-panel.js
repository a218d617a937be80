// The export panel: the last trace through the package's exporters (enabled only when the build
// has them), and the timeline as JSON or as trace events with the marks and measures.
const $ = (id) => document.getElementById(id);

const EMPTY_TRACE = Object.freeze({ resources: [], frames: [], stacks: [], samples: [] });

export function setupExportPanel({ perfshim, perf }) {
  const status = $('export-status');
  let last = null; // { trace, workload }

  const has = (fn) => typeof perfshim[fn] === 'function';
  const EXPORTS = {
    cpuprofile: {
      fn: 'toCpuProfile',
      needsTrace: true,
      file: (w) => `perfshim-${w}.cpuprofile`,
      make: (t) => perfshim.toCpuProfile(t),
    },
    'trace-event': {
      fn: 'toTraceEvents',
      needsTrace: true,
      file: (w) => `perfshim-${w}.trace.json`,
      make: (t) => perfshim.toTraceEvents(t),
    },
    firefox: {
      fn: 'toFirefoxProfile',
      needsTrace: true,
      file: (w) => `perfshim-${w}.firefox.json`,
      make: (t) => perfshim.toFirefoxProfile(t),
    },
    speedscope: {
      fn: 'toSpeedscope',
      needsTrace: true,
      file: (w) => `perfshim-${w}.speedscope.json`,
      make: (t) => perfshim.toSpeedscope(t),
    },
    entries: {
      fn: null,
      needsTrace: false,
      file: () => 'perfshim-timeline.entries.json',
      make: () => perf.getEntries().map((e) => e.toJSON()),
    },
    'timeline-trace-event': {
      fn: 'toTraceEvents',
      needsTrace: false,
      file: () => 'perfshim-timeline.trace.json',
      make: (t) => perfshim.toTraceEvents(t || EMPTY_TRACE, { entries: perf.getEntries() }),
    },
  };

  const buttons = [...document.querySelectorAll('#export-buttons button')];
  const refresh = () => {
    for (const b of buttons) {
      const x = EXPORTS[b.dataset.export];
      const missing = x.fn && !has(x.fn);
      b.disabled = missing || (x.needsTrace && !last);
      b.title = missing
        ? `perfshim.${x.fn} is not available in this build`
        : x.needsTrace && !last
          ? 'run the profiler first'
          : `download ${x.file(last ? last.workload : 'trace')}`;
      b.classList.toggle('missing', Boolean(missing));
    }
    const missing = [
      ...new Set(
        Object.values(EXPORTS)
          .filter((x) => x.fn && !has(x.fn))
          .map((x) => x.fn),
      ),
    ];
    status.textContent = missing.length
      ? `Not available in this build of perfshim: ${missing.map((f) => `${f}()`).join(', ')}.`
      : last
        ? ''
        : 'Run the profiler to export a trace.';
    status.className = `status ${missing.length ? 'muted' : ''}`;
  };

  for (const b of buttons) {
    b.onclick = () => {
      const x = EXPORTS[b.dataset.export];
      let data;
      try {
        data = x.make(last ? last.trace : null);
      } catch (e) {
        status.textContent = `${x.fn} threw ${e.name}: ${e.message}`;
        return;
      }
      download(x.file(last ? last.workload : 'trace'), JSON.stringify(data));
    };
  }
  refresh();
  return {
    setTrace(trace, info) {
      last = { trace, workload: info.workload };
      refresh();
    },
  };
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
