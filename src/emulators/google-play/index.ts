/** The Google Play Developer API emulator and its OAuth2 token endpoint. */
export { registerGooglePlayEmulator } from './routes.js';
export { createPlayState, type PlaySeed, type PlayState } from './state.js';
