/** The App Store Connect emulator. */
export { registerAppStoreEmulator } from './routes.js';
export { createAppStoreState, type AppStoreState, type AscSeed } from './state.js';
