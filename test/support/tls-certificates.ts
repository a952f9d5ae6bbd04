import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface IssuedCertificate {
  key: string;
  cert: string;
}

/** A throwaway certificate authority, made with the openssl command (Node cannot issue X.509 certificates). */
export class TestCertificateAuthority {
  private constructor(
    private readonly dir: string,
    /** The CA's certificate (PEM), what a client trusts. */
    readonly cert: string,
  ) {}

  static create(name = 'fleet-registry test CA'): TestCertificateAuthority {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-ca-'));
    openssl(dir, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem',
      '-subj', `/CN=${name}`, '-days', '2', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    return new TestCertificateAuthority(dir, readFileSync(join(dir, 'ca.pem'), 'utf8'));
  }

  /** A server certificate for `subjectAltName` (e.g. `IP:127.0.0.1`), signed by this CA. */
  issue(subjectAltName: string): IssuedCertificate {
    const name = `server-${Math.random().toString(36).slice(2)}`;
    writeFileSync(join(this.dir, `${name}.ext`), `subjectAltName=${subjectAltName}\nextendedKeyUsage=serverAuth\n`);
    openssl(this.dir, 'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=syslog receiver');
    openssl(this.dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
    return { key: readFileSync(join(this.dir, `${name}.key`), 'utf8'), cert: readFileSync(join(this.dir, `${name}.pem`), 'utf8') };
  }

  /** The CA certificate in a file of its own, as AUDIT_SYSLOG_CA_FILE names it. */
  certFile(): string {
    return join(this.dir, 'ca.pem');
  }
}

function openssl(cwd: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}
