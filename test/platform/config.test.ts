import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('loadConfig', () => {
  it('applies the defaults of design.md §2', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      publicUrl: 'http://localhost:3000',
      database: { kind: 'sqlite', path: expect.stringMatching(/data\/appmeta\.db$/) },
      redisUrl: null,
      secretKey: null,
      appstoreApiUrl: 'https://api.appstoreconnect.apple.com',
      playApiUrl: 'https://androidpublisher.googleapis.com',
      googleTokenUrl: 'https://oauth2.googleapis.com/token',
      logLevel: 'info',
      corsOrigins: [],
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('changes unconfirmed product limits with APPMETA_PRODUCT_LIMITS, naming every bad entry', () => {
    const config = loadConfig({
      APPMETA_PRODUCT_LIMITS:
        '{"appstore.inAppPurchase.name.max": 30, "playstore.subscription.benefits.maxItems": 3}',
    });
    expect(config.productLimits.appstore.inAppPurchase!.name).toMatchObject({ max: 30, min: 2 });
    expect(config.productLimits.playstore.subscription!.benefits!.list).toEqual({ maxItems: 3 });
    // The defaults are untouched, and stay the best-known values.
    expect(loadConfig({}).productLimits.appstore.inAppPurchase!.name!.max).toBe(35);
    expect(() => loadConfig({ APPMETA_PRODUCT_LIMITS: '[1]' })).toThrow(
      /APPMETA_PRODUCT_LIMITS must be a JSON object/,
    );
    let error: ConfigError | undefined;
    try {
      loadConfig({
        APPMETA_PRODUCT_LIMITS:
          '{"appstore.inAppPurchase.title.max": 30, "appstore.inAppPurchase.name.max": 0, "appstore.inAppPurchase.name.maxItems": 2}',
      });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error?.problems).toEqual([
      'APPMETA_PRODUCT_LIMITS: appstore.inAppPurchase.title.max names no limit (use <store>.<kind>.<field>.max|min|maxItems); ' +
        'appstore.inAppPurchase.name.max must be a positive integer; appstore.inAppPurchase.name.maxItems: name is not a list',
    ]);
  });

  it('derives PUBLIC_URL from PORT and strips a trailing slash', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    // The CLI beside a server on another port: the address the first start printed.
    expect(loadConfig({ APPMETA_URL: 'http://localhost:4123' }).publicUrl).toBe('http://localhost:4123');
    expect(
      loadConfig({ APPMETA_URL: 'http://localhost:4123', PUBLIC_URL: 'https://a.example' }).publicUrl,
    ).toBe('https://a.example');
    expect(loadConfig({ PUBLIC_URL: 'https://appmeta.example.com/' }).publicUrl).toBe(
      'https://appmeta.example.com',
    );
  });

  it('reads CORS_ORIGINS as a list of origins, or * alone', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:5173/' }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    for (const bad of ['https://a.example/app', 'a.example', '*, https://a.example', 'ftp://a.example']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS/);
    }
  });

  it('reads PostgreSQL and requires APPMETA_SECRET_KEY with it', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@h/db' })).toThrow(/APPMETA_SECRET_KEY is required/);
    const config = loadConfig({ DATABASE_URL: 'postgres://u@h/db', APPMETA_SECRET_KEY: KEY });
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u@h/db', redisUrl: null });
    expect(config.secretKey?.length).toBe(32);
  });

  it('reports every bad variable at once, each by name', () => {
    try {
      loadConfig({
        PORT: '70000',
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'http://x',
        APPMETA_SECRET_KEY: 'short',
        LOG_LEVEL: 'loud',
        PLAY_API_URL: 'ftp://x',
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const text = (error as ConfigError).problems.join('\n');
      for (const name of [
        'PORT',
        'DATABASE_URL',
        'REDIS_URL',
        'APPMETA_SECRET_KEY',
        'LOG_LEVEL',
        'PLAY_API_URL',
      ]) {
        expect(text).toContain(name);
      }
    }
  });
});
