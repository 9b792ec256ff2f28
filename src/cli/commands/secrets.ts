/** Re-encrypting stored secrets under the current key. */
import type { Command } from 'commander';
import { emit, withServices, type Output } from '../command-kit.js';

export function secretsCommands(program: Command, output: () => Output): void {
  program
    .command('secrets')
    .description('encryption keys of stored store credentials')
    .command('rotate')
    .description(
      're-encrypt stored credentials and webhook secrets under APPMETA_SECRET_KEY (old keys in APPMETA_SECRET_KEY_PREVIOUS)',
    )
    .action(async () => {
      const result = await withServices(async (services) => ({
        ...(await services.credentials.rotateKeys()),
        webhooks: await services.webhooks.rotateKeys(),
      }));
      emit(output(), result, [
        `Re-encrypted ${result.rotated} of ${result.total} stored credentials under the current key.`,
        `Re-encrypted the secrets of ${result.webhooks.rotated} of ${result.webhooks.total} webhook endpoints.`,
      ]);
    });
}
