// The demo's field collector (make demo, and the demo's browser tests): a `perfshim collect`
// handler on its own port (another origin, as a real collector would be: the uploads are CORS
// simple requests), POST /upload takes the page's simulated visits, GET /profiles hands the
// aggregates held so far to the Field panel as JSON (frames, stacks, count and ms per stack).
import { createServer } from 'node:http';
import { createCollector } from '../glue/field/collector.js';

export async function startFieldCollector() {
  const collector = createCollector({ windowSeconds: 3600, path: '/upload' });
  const server = createServer((req, res) => {
    if (req.url === '/profiles') {
      const body = collector.snapshot().map(({ labels, read }) => ({
        labels,
        frames: read.frames,
        resources: read.resources,
        stacks: read.stacks,
        count: [...read.count],
        time: [...read.time],
      }));
      res.writeHead(200, {
        'content-type': 'application/json',
        'access-control-allow-origin': '*',
        'cross-origin-resource-policy': 'cross-origin',
      });
      return res.end(JSON.stringify(body));
    }
    collector.handler(req, res, () => {
      res.writeHead(404).end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    collector,
    close: () => new Promise((r) => server.close(r)),
  };
}
