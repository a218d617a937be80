import type { InstallResult } from './index.js';
/** What `import 'perfshim/auto'` installed. */
export declare const installed: InstallResult;
