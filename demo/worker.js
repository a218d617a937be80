// Dedicated worker for the memory panel: holds about 50 MB so its attribution shows.
self.kept = new Array(6553600).fill(0.5);
postMessage({ ready: true, bytes: self.kept.length * 8 });
