import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The certificates of the real-server tier, made with openssl in a test folder: one CA; the public
 * frontend's server certificate (for `serverName`, localhost and 127.0.0.1); the services'
 * internode certificate (server and client use); and client certificates (workers, the CLI, the
 * main job). EC P-256 keys, valid for a day. Nothing here is a secret worth keeping: the folder is
 * removed with the tier.
 */
export interface TierCertificates {
  readonly dir: string;
  readonly ca: string;
  /** The name the frontend certificate is issued for (clients set TEMPORAL_TLS_SERVER_NAME to it). */
  readonly serverName: string;
  /** A client certificate and key for `commonName`, issued on demand by the tier's CA. */
  client(commonName: string): { readonly cert: string; readonly key: string };
}

const OPENSSL = '/usr/bin/openssl';

function openssl(args: readonly string[], cwd: string): void {
  execFileSync(OPENSSL, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Key + CSR + certificate signed by the CA in `dir`, with the given extensions. */
function issue(dir: string, name: string, subject: string, extensions: string): void {
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(
    ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', `${name}-key.pem`],
    dir,
  );
  openssl(['req', '-new', '-key', `${name}-key.pem`, '-subj', subject, '-out', `${name}.csr`], dir);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca-key.pem',
      '-CAcreateserial',
      '-days',
      '1',
      '-sha256',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    ],
    dir,
  );
}

/**
 * Make the CA, `frontend.pem` and `internode.pem` (with their `-key.pem`) in `dir`, the file names
 * deploy/temporal/temporal-server.yaml expects.
 * @throws when openssl fails (its stderr is in the error).
 */
export function makeTierCertificates(dir: string, serverName: string): TierCertificates {
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'ca-key.pem'], dir);
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      'ca-key.pem',
      '-subj',
      '/CN=agent-harness test CA',
      '-days',
      '1',
      '-sha256',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.pem',
    ],
    dir,
  );
  const serverExt = (names: string) =>
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=${names}\n`;
  issue(dir, 'frontend', `/CN=${serverName}`, serverExt(`DNS:${serverName},DNS:localhost,IP:127.0.0.1`));
  issue(
    dir,
    'internode',
    '/CN=internode.temporal',
    serverExt('DNS:internode.temporal,DNS:localhost,IP:127.0.0.1'),
  );
  return {
    dir,
    ca: join(dir, 'ca.pem'),
    serverName,
    client: (commonName) => issueClientCertificate(dir, commonName),
  };
}

/**
 * A client certificate for `commonName` (its own key), issued by the CA in `dir` (made by
 * {@link makeTierCertificates}); any process with the folder can issue one.
 * @throws when openssl fails.
 */
export function issueClientCertificate(dir: string, commonName: string): { cert: string; key: string } {
  const name = `client-${commonName.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
  if (!existsSync(join(dir, `${name}.pem`)))
    issue(
      dir,
      name,
      `/CN=${commonName}`,
      'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
    );
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}-key.pem`) };
}
