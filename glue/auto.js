// `import 'perfshim/auto'`: installs synchronously; the APIs work on the next line.
import { install } from './index.js';

export const installed = install();
