// The classic-script build of perfshim/timeline (dist/perfshim.timeline.auto.js): as
// dist/perfshim.auto.js, with User Timing + Performance Timeline only.
import * as perfshim from './timeline-only.js';
import { installClassic } from './classic.js';

installClassic(perfshim);
