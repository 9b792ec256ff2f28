/** Drift detection: what was edited in the stores' own consoles since the last sync. */
export { createDriftDetection, type DriftDetection, type DriftedField } from './drift.service.js';
export { forgetDrift } from './drift.service.js';
