// Throwaway TLS material for the test API server: a CA, a serving certificate for 127.0.0.1 and a
// client certificate, made with the system's openssl once per process (a few hundred ms).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TlsMaterial {
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** the client certificate's common name (the user name the server reports) */
  readonly clientUser: string;
}

export const CLIENT_USER = 'podplan-test-user';

let cached: Promise<TlsMaterial> | undefined;

/** The process-wide TLS material (generated on first use). */
export function tlsMaterial(): Promise<TlsMaterial> {
  cached ??= generate().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

/** A leaf certificate the CA of `writeCertificates` signs: its file name, subject and openssl extensions. */
export interface Leaf {
  readonly name: string;
  readonly subject: string;
  readonly ext: string;
}

/**
 * A throwaway CA (`ca.crt`, `ca.key`, subject `/CN=<caName>`) and each leaf's `<name>.crt` and
 * `<name>.key` signed by it, EC P-256, valid two days, written into `dir` with the system's openssl:
 * the test API server's material and the real tier's (test/real/cluster.ts) alike.
 */
export async function writeCertificates(dir: string, caName: string, leaves: readonly Leaf[]): Promise<void> {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const file = (name: string): string => join(dir, name);
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.crt'),
    '-days',
    '2',
    '-subj',
    `/CN=${caName}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  for (const { name, subject, ext } of leaves) {
    await writeFile(file(`${name}.ext`), ext);
    await run('openssl', ['req', ...ec, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', subject]);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file('ca.crt'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file(`${name}.crt`),
      '-days',
      '2',
      '-extfile',
      file(`${name}.ext`),
    ]);
  }
}

async function generate(): Promise<TlsMaterial> {
  const dir = await mkdtemp(join(tmpdir(), 'podplan-apiserver-tls-'));
  try {
    await writeCertificates(dir, 'podplan-test-ca', [
      {
        name: 'server',
        subject: '/CN=127.0.0.1',
        ext: 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n',
      },
      {
        name: 'client',
        subject: `/O=system:masters/CN=${CLIENT_USER}`,
        ext: 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n',
      },
    ]);
    const read = (name: string): Promise<string> => readFile(join(dir, name), 'utf8');
    return {
      caCert: await read('ca.crt'),
      serverCert: await read('server.crt'),
      serverKey: await read('server.key'),
      clientCert: await read('client.crt'),
      clientKey: await read('client.key'),
      clientUser: CLIENT_USER,
    };
  } catch (err) {
    throw new Error(`test API server: generating TLS material with openssl failed (is openssl installed?): ${String(err)}`, { cause: err });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
