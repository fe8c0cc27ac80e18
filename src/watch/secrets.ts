// Webhook secrets at rest: sealed with AES-256-GCM under a key kept outside the database (the file
// WEBHOOK_KEY_FILE, made with mode 0600 on first start, or one derived from WEBHOOK_SECRET_KEY), so
// a copy of the database alone cannot sign a delivery. Replicas on one PostgreSQL share the key
// (the same file or setting); a watch whose secret cannot be opened is reported, never sent unsigned.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface SecretBox {
  seal(secret: string): string;
  open(sealed: string): string;
}

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('webhook secret key must be 32 bytes');
  return {
    seal(secret) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(secret, 'utf8'), c.final()]);
      return ['v1', iv.toString('base64'), c.getAuthTag().toString('base64'), body.toString('base64')].join('.');
    },
    open(sealed) {
      const [v, iv, tag, body] = sealed.split('.');
      if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('sealed secret in an unknown form');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      d.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([d.update(Buffer.from(body, 'base64')), d.final()]).toString('utf8');
    },
  };
}

/**
 * A box whose key is loaded on its first use: a gateway whose users make no webhook writes no key
 * file (a lone binary on PostgreSQL writes nothing beside itself).
 */
export function lazySecretBox(load: () => Buffer): SecretBox {
  let box: SecretBox | undefined;
  const opened = () => (box ??= secretBox(load()));
  return { seal: (secret) => opened().seal(secret), open: (sealed) => opened().open(sealed) };
}

/** The sealing key: from the setting when given (hashed to 32 bytes), else the key file, created once. */
export function loadSealingKey(setting: string | undefined, file: string): Buffer {
  if (setting) return createHash('sha256').update(setting).digest();
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (e) {
      // Another process starting at the same moment made it first: that key is the one.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  chmodSync(file, 0o600);
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}
